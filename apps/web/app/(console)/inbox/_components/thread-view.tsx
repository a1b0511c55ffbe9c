"use client";

import type { EmailMessage, PersonEmailThread } from "@switchboard/contract";
import { useInfiniteQuery, useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import { LinkifiedText } from "~/components/linkified-text";
import { Markdown } from "~/components/markdown";
import { type OlderPage, olderPageOf, ShowOlder } from "~/components/paged-list";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import ui from "~/components/ui/layout.module.css";
import { RelativeTime } from "~/components/ui/time";
import { useTRPC } from "~/trpc/client";
import styles from "../inbox.module.css";
import { nameOf, namesOf } from "./names";

/**
 * One thread, kept live by the console: its newest emails oldest first with the newest in view,
 * "Show older emails" loading the page before (an
 * agent's as the same safe markdown as its chat messages, a person's as written with its web
 * addresses linked), and a reply box. Opening it (and each new email while it is open) marks it read.
 */
export function ThreadView({ threadId }: { threadId: string }) {
  const trpc = useTRPC();
  // Pages run newest first: each next page is the emails before the oldest one shown.
  const page = useInfiniteQuery(
    trpc.inbox.thread.infiniteQueryOptions(
      { threadId },
      { getNextPageParam: (last) => (last.hasMore ? last.messages[0]?.id : undefined) },
    ),
  );
  const markRead = useMutation(trpc.inbox.markRead.mutationOptions());
  const unread = (page.data?.pages[0]?.thread.unreadCount ?? 0) > 0;
  const { mutate: mark } = markRead;
  useEffect(() => {
    if (unread) mark({ threadId });
  }, [unread, mark, threadId]);

  if (page.isPending)
    return (
      <p className={ui.muted}>
        <title>Inbox · Switchboard</title>
        Loading the thread…
      </p>
    );
  if (page.error)
    return (
      <p className={ui.formError} role="alert">
        {page.error.data?.code === "not_found" ? "There is no such thread." : page.error.message}
      </p>
    );
  const [newest] = page.data.pages;
  if (!newest) return null;
  const { thread } = newest;
  const messages = page.data.pages.toReversed().flatMap((p) => p.messages);
  return (
    <Card className={styles.thread} aria-labelledby="thread-heading">
      <title>{`${thread.subject} · Inbox · Switchboard`}</title>
      <Link href="/inbox" className={styles.back}>
        ← Inbox
      </Link>
      <header className={styles.threadHead}>
        <h1 id="thread-heading" data-testid="thread-subject">
          {thread.subject}
        </h1>
        <p className={ui.muted} data-testid="thread-participants">
          {thread.isGroup ? "Group with " : "With "}
          {thread.participants.map((user, i) => (
            <span key={user.id}>
              {i > 0 && ", "}
              {nameOf(user)} <span className={ui.mono}>{user.num}</span>
              {user.userType === "agent" && (
                <Badge tone="off" className={styles.badge}>
                  agent
                </Badge>
              )}
            </span>
          ))}
        </p>
      </header>
      <EmailList thread={thread} messages={messages} older={olderPageOf(page)} />
      <ReplyBox thread={thread} />
    </Card>
  );
}

function EmailList({
  thread,
  messages,
  older,
}: {
  thread: PersonEmailThread;
  messages: EmailMessage[];
  /** Loads the page before the oldest email shown; null when there is none. */
  older: OlderPage | null;
}) {
  const list = useRef<HTMLOListElement>(null);
  const newestId = messages.at(-1)?.id;
  useEffect(() => {
    if (newestId) list.current?.scrollTo({ top: list.current.scrollHeight });
  }, [newestId]);
  const sender = (id: string) => thread.participants.find((user) => user.id === id);
  return (
    <ol className={styles.emails} ref={list} data-testid="thread-emails" aria-live="polite">
      {older && (
        <li className={styles.older}>
          <ShowOlder older={older} what="emails" testId="thread-older" />
        </li>
      )}
      {messages.map((email) => {
        const from = sender(email.senderId);
        return (
          <li
            key={email.id}
            className={from ? styles.email : `${styles.email} ${styles.mine}`}
            data-testid="email-message"
            data-message-id={email.id}
            data-sender={from ? from.userType : "me"}
          >
            <div className={styles.emailHead}>
              <strong>{from ? nameOf(from) : "You"}</strong>
              <span className={`${ui.mono} ${ui.muted}`}>{email.senderNum}</span>
              <RelativeTime iso={email.createdAt} />
            </div>
            {from?.userType === "agent" ? (
              <div className={styles.emailText}>
                <Markdown text={email.content} />
              </div>
            ) : (
              <p className={`${styles.emailText} ${styles.plain}`}>
                <LinkifiedText text={email.content} />
              </p>
            )}
          </li>
        );
      })}
    </ol>
  );
}

function ReplyBox({ thread }: { thread: PersonEmailThread }) {
  const trpc = useTRPC();
  const [text, setText] = useState("");
  const send = useMutation(trpc.inbox.send.mutationOptions());
  const error = shownError(send.error);
  const reply = () => {
    const content = text.trim();
    if (!content || send.isPending) return;
    send.mutate({ threadId: thread.id, content }, { onSuccess: () => setText("") });
  };
  return (
    <form
      className={styles.reply}
      onSubmit={(event) => {
        event.preventDefault();
        reply();
      }}
    >
      <label className={ui.visuallyHidden} htmlFor="reply-text">
        Reply to {namesOf(thread.participants)}
      </label>
      <textarea
        id="reply-text"
        rows={4}
        maxLength={10_000}
        placeholder={`Reply to ${namesOf(thread.participants)}`}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            reply();
          }
        }}
        data-testid="reply-text"
      />
      <div className={styles.replyActions}>
        <span className={`${ui.hint} ${styles.sendHint}`}>Ctrl+Enter sends</span>
        <Button type="submit" disabled={send.isPending || !text.trim()} data-testid="reply-send">
          {send.isPending ? "Sending…" : "Reply"}
        </Button>
      </div>
      <FormError message={error?.message} testId="reply-error" />
    </form>
  );
}
