import type { ReactNode } from "react";
import { ChatList } from "./_components/chat-list";

/** Chats: the person's chats with agents beside the one open (or the consent card). */
export default function ChatsLayout({ children }: { children: ReactNode }) {
  return (
    <div className="chats">
      <ChatList />
      <div className="chats-main">{children}</div>
    </div>
  );
}
