import type { ReactNode } from "react";
import { HydrateClient, trpc } from "~/trpc/server";
import { ChatList } from "./_components/chat-list";
import { ChatsShell } from "./_components/chats-shell";

/** Chats: the person's chats with agents beside the one open (or the consent card). */
export default function ChatsLayout({ children }: { children: ReactNode }) {
  return (
    <ChatsShell
      list={
        <HydrateClient queries={[trpc.chats.list.queryOptions()]}>
          <ChatList />
        </HydrateClient>
      }
    >
      {children}
    </ChatsShell>
  );
}
