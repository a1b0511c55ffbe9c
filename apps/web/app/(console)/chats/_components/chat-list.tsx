"use client";

import type { PersonConversation } from "@switchboard/contract";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { RelativeTime } from "~/components/time";
import { useTRPC } from "~/trpc/client";
import styles from "./chat.module.css";
import { messagePreview } from "./message-preview";

/** The person's chats, newest activity first (kept live by the console); the open one is marked. */
export function ChatList() {
  const trpc = useTRPC();
  const chats = useQuery(trpc.chats.list.queryOptions());
  const open = useParams<{ conversationId?: string }>().conversationId;
  return (
    <aside className="split-list" aria-labelledby="chat-list-heading">
      <div className="split-list-head">
        <h2 id="chat-list-heading">Chats</h2>
      </div>
      <Link href="/chats/add" className="chat-add" data-testid="chat-add">
        + Add an agent
      </Link>
      {chats.error && <p className="form-error">{chats.error.message}</p>}
      {chats.data?.length === 0 && (
        <p className="hint split-list-empty">No chats yet. Add an agent by its 800 number.</p>
      )}
      <ul data-testid="chat-list">
        {chats.data?.map((chat) => (
          <li key={chat.id}>
            <Link
              href={`/chats/${chat.id}`}
              className="chat-row"
              aria-current={chat.id === open ? "page" : undefined}
              data-testid="chat-row"
            >
              <span className="chat-row-name">
                <span className="truncate" title={chat.agent.displayName ?? chat.agent.num}>
                  {chat.agent.displayName ?? chat.agent.num}
                </span>
                {chat.unreadCount > 0 && (
                  <span className="badge" data-testid="chat-unread">
                    {chat.unreadCount}
                    <span className="visually-hidden"> unread</span>
                  </span>
                )}
              </span>
              <span className={styles.rowLine}>
                <span className="chat-row-preview">{rowLine(chat)}</span>
                {chat.lastMessageAt && (
                  <RelativeTime iso={chat.lastMessageAt} style="list" className={styles.rowTime} />
                )}
              </span>
            </Link>
          </li>
        ))}
      </ul>
    </aside>
  );
}

function rowLine(chat: PersonConversation): string {
  if (chat.blocked) return "Blocked";
  if (chat.agentTypingUntil && Date.parse(chat.agentTypingUntil) > Date.now()) return "typing…";
  if (!chat.isContact) return "Not in your contacts";
  return chat.lastMessage ? messagePreview(chat.lastMessage) : chat.agent.num;
}
