"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import { formatTime } from "~/components/format";
import { Skeleton } from "~/components/skeleton";
import { useReaderTimes } from "~/components/time";
import { useTRPC } from "~/trpc/client";

/** The self chat, newest at the bottom, kept live by the console's subscription. */
export function SelfMessages() {
  useReaderTimes();
  const trpc = useTRPC();
  const messages = useQuery(trpc.selfChat.list.queryOptions());
  const list = useRef<HTMLOListElement>(null);
  const count = messages.data?.length ?? 0;

  useEffect(() => {
    if (count > 0) list.current?.scrollTo({ top: list.current.scrollHeight });
  }, [count]);

  return (
    <section className="card" aria-labelledby="messages-heading">
      <div className="card-head">
        <h2 id="messages-heading">Messages</h2>
        <span className="hint">New messages appear as they arrive</span>
      </div>
      {messages.isPending && <Skeleton label="your messages" />}
      {messages.error && <p className="form-error">{messages.error.message}</p>}
      {count === 0 && !messages.isPending && (
        <p className="empty" data-testid="self-messages-empty">
          No messages yet. Create a developer key below and post one with the example.
        </p>
      )}
      <ol
        className="messages"
        ref={list}
        data-testid="self-messages"
        aria-live="polite"
        aria-label="Self chat messages"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard.
        tabIndex={0}
      >
        {messages.data?.map((message) => (
          <li key={message.id} className="bubble" data-testid="self-message">
            <span className="bubble-text">{message.content}</span>
            <time dateTime={message.createdAt}>{formatTime(message.createdAt)}</time>
          </li>
        ))}
      </ol>
    </section>
  );
}
