"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef } from "react";
import bubble from "~/components/ui/bubble.module.css";
import { Card, CardHead } from "~/components/ui/card";
import { EmptyState } from "~/components/ui/empty-state";
import ui from "~/components/ui/layout.module.css";
import { Skeleton } from "~/components/ui/skeleton";
import { RelativeTime } from "~/components/ui/time";
import { useTRPC } from "~/trpc/client";
import styles from "../self-chat.module.css";

/** The self chat, newest at the bottom, kept live by the console's subscription. */
export function SelfMessages() {
  const trpc = useTRPC();
  const messages = useQuery(trpc.selfChat.list.queryOptions());
  const list = useRef<HTMLOListElement>(null);
  const count = messages.data?.length ?? 0;

  useEffect(() => {
    if (count > 0) list.current?.scrollTo({ top: list.current.scrollHeight });
  }, [count]);

  return (
    <Card aria-labelledby="messages-heading">
      <CardHead>
        <h2 id="messages-heading">Messages</h2>
        <span className={ui.hint}>New messages appear as they arrive</span>
      </CardHead>
      {messages.isPending && <Skeleton label="your messages" />}
      {messages.error && <p className={ui.formError}>{messages.error.message}</p>}
      {count === 0 && !messages.isPending && (
        <EmptyState data-testid="self-messages-empty">
          No messages yet. Create a developer key below and post one with the example.
        </EmptyState>
      )}
      <ol
        className={styles.messages}
        ref={list}
        data-testid="self-messages"
        aria-live="polite"
        aria-label="Self chat messages"
        // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard.
        tabIndex={0}
      >
        {messages.data?.map((message) => (
          <li key={message.id} className={bubble.bubble} data-testid="self-message">
            <span className={bubble.text}>{message.content}</span>
            <RelativeTime iso={message.createdAt} />
          </li>
        ))}
      </ol>
    </Card>
  );
}
