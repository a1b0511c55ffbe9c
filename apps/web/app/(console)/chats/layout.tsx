import { type ReactNode, Suspense } from "react";
import { firstPageOnly, HydrateClient, trpc } from "~/trpc/server";
import { ChatList } from "./_components/chat-list";
import { ChatsShell } from "./_components/chats-shell";

/**
 * Chats: the person's chats with agents beside the one open (or the consent card). The server
 * renders the list's first page only; the rest loads as the person scrolls. The list is its own
 * boundary, hydrated after the open chat (whose composer is what the person came to use).
 */
export default function ChatsLayout({ children }: { children: ReactNode }) {
  return (
    <ChatsShell
      list={
        <HydrateClient queries={[trpc.chats.list.infiniteQueryOptions({}, firstPageOnly)]}>
          <Suspense>
            <ChatList />
          </Suspense>
        </HydrateClient>
      }
    >
      {children}
    </ChatsShell>
  );
}
