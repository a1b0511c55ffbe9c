import { cookies } from "next/headers";
import type { ReactNode } from "react";
import { getSessionUser } from "~/auth/session";
import { ConsoleNav } from "~/components/console-nav";
import { ConnectionBanner, LiveProvider } from "~/components/live-updates";
import { Presence } from "~/components/presence";
import { ServiceWorker } from "~/components/service-worker";
import { SignInFirst } from "~/components/sign-in-first";
import { requestTheme } from "~/components/theme";
import { UndoSnackbar } from "~/components/ui/undo";
import { HydrateClient, pageReadAt, trpc } from "~/trpc/server";
import styles from "./layout.module.css";

export const dynamic = "force-dynamic";

/**
 * Every console page: signed in (or sent to sign in, coming back here after), with the
 * navigation beside it (below it on a phone) and a banner when the tab is offline. Each registers
 * the service worker that shows the offline page when the network is down.
 */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const dataReadAt = pageReadAt(); // before this page reads anything
  const user = await getSessionUser();
  if (!user)
    return (
      <>
        <ServiceWorker />
        <SignInFirst />
      </>
    );
  return (
    <LiveProvider dataReadAt={dataReadAt}>
      <ServiceWorker />
      <Presence />
      <UndoSnackbar />
      <div className={styles.shell}>
        <a href="#main" className={styles.skipLink}>
          Skip to content
        </a>
        {/* How many cards wait (its badge, the title's count) is in the first HTML too. */}
        <HydrateClient queries={[trpc.chats.waitingCount.queryOptions()]}>
          <ConsoleNav name={user.name} num={user.num} theme={requestTheme(await cookies())} />
        </HydrateClient>
        {/* "main" stays a global name too: pages widen it (chats, split views) with :has(). */}
        <main className={`${styles.main} main`} id="main">
          <ConnectionBanner />
          {children}
        </main>
      </div>
    </LiveProvider>
  );
}
