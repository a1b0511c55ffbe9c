import type { ReactNode } from "react";
import { requireSessionUser } from "~/auth/session";
import { ConsoleNav } from "~/components/console-nav";

export const dynamic = "force-dynamic";

/** Every console page: signed in (or sent to /signin), with the navigation beside it. */
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const user = await requireSessionUser();
  return (
    <div className="shell">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <ConsoleNav name={user.name} num={user.num} />
      <main className="main" id="main">
        {children}
      </main>
    </div>
  );
}
