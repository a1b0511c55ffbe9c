"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useParams } from "next/navigation";
import { markdownAsText } from "~/components/markdown-text";
import { eachOnce, olderPageOf, ShowOlder } from "~/components/paged-list";
import { splitList } from "~/components/split-view";
import { Badge } from "~/components/ui/badge";
import ui from "~/components/ui/layout.module.css";
import { RelativeTime } from "~/components/ui/time";
import { useTRPC } from "~/trpc/client";
import type { RouterOutputs } from "~/trpc/router";
import styles from "../inbox.module.css";
import { namesOf } from "./names";

/**
 * The person's threads, newest activity first, a page at a time (kept live by the console: a
 * change re-reads the loaded pages); the open one is marked.
 */
export function ThreadList() {
  const trpc = useTRPC();
  const list = useInfiniteQuery(
    trpc.inbox.list.infiniteQueryOptions(
      {},
      { getNextPageParam: (last) => (last.hasMore ? last.threads.at(-1)?.id : undefined) },
    ),
  );
  const threads = eachOnce(list.data?.pages.flatMap((page) => page.threads) ?? []);
  const open = useParams<{ threadId?: string }>().threadId;
  const older = olderPageOf(list);
  return (
    <aside className={splitList.list} aria-labelledby="inbox-list-heading">
      <div className={splitList.head}>
        <h2 id="inbox-list-heading">Inbox</h2>
        <Link href="/inbox/new" className={styles.composeLink} data-testid="inbox-compose">
          New email
        </Link>
      </div>
      {list.error && <p className={ui.formError}>{list.error.message}</p>}
      {list.data && threads.length === 0 && (
        <p className={`${ui.hint} ${splitList.empty}`} data-testid="inbox-empty">
          No email yet.
        </p>
      )}
      <ul data-testid="inbox-threads">
        {threads.map((thread) => (
          <li key={thread.id}>
            <Link
              href={`/inbox/${thread.id}`}
              className={`${splitList.row} ${styles.row}${thread.unreadCount > 0 ? ` ${styles.unread}` : ""}`}
              aria-current={thread.id === open ? "page" : undefined}
              data-testid="inbox-thread"
              data-thread-id={thread.id}
            >
              <span className={styles.rowTop}>
                <span className={styles.rowNames}>{namesOf(thread.participants)}</span>
                {thread.unreadCount > 0 && (
                  <Badge data-testid="inbox-unread" title="Unread emails">
                    {thread.unreadCount}
                  </Badge>
                )}
              </span>
              <span className={styles.rowSubject} data-testid="inbox-thread-subject">
                {thread.isGroup && <Badge tone="off">group</Badge>} {thread.subject}
              </span>
              <span className={styles.rowPreview} data-testid="inbox-thread-preview">
                <RelativeTime iso={thread.lastMessageAt} style="list" />
                {thread.lastMessage ? ` · ${emailPreview(thread)}` : ""}
              </span>
            </Link>
          </li>
        ))}
      </ul>
      {older && <ShowOlder older={older} className={styles.older} testId="inbox-older" />}
    </aside>
  );
}

type Thread = RouterOutputs["inbox"]["list"]["threads"][number];

/** The last email in plain words: an agent's markdown without its markers, a person's as written. */
function emailPreview({ lastMessage, participants }: Thread): string {
  if (!lastMessage) return "";
  const sender = participants.find((user) => user.id === lastMessage.senderId);
  return sender?.userType === "agent"
    ? markdownAsText(lastMessage.content)
    : lastMessage.content.trim();
}
