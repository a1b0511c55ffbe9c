import type { ReactNode } from "react";
import { firstPageOnly, HydrateClient, trpc } from "~/trpc/server";
import { InboxShell } from "./_components/inbox-shell";

/** Inbox: the person's email threads (their first page) beside the one open (or the compose form). */
export default function InboxLayout({ children }: { children: ReactNode }) {
  return (
    <HydrateClient queries={[trpc.inbox.list.infiniteQueryOptions({}, firstPageOnly)]}>
      <InboxShell>{children}</InboxShell>
    </HydrateClient>
  );
}
