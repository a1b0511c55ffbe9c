"use client";

import type { PersonChatMessage, PersonConversation, PersonOpenReply } from "@switchboard/contract";
import { useInfiniteQuery, useMutation } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import { useTRPC } from "~/trpc/client";
import { ApprovalCard } from "./approval-card";
import { ChatSettings } from "./chat-settings";
import { Composer } from "./composer";
import { MessageBubble } from "./message-bubble";

/**
 * One chat with an agent, kept live by the chats layout: messages oldest first with the newest
 * in view, the agent's typing, read state and reactions; reading the chat marks it read.
 */
export function ChatView({ conversationId }: { conversationId: string }) {
  const trpc = useTRPC();
  // Pages run newest first: each next page is the messages before the oldest one shown.
  const page = useInfiniteQuery(
    trpc.chats.page.infiniteQueryOptions(
      { chat: conversationId },
      {
        getNextPageParam: (last) => (last.hasMore ? last.messages[0]?.id : undefined),
      },
    ),
  );
  const [showSettings, setShowSettings] = useState(false);

  if (page.isPending) return <p className="muted">Loading the chat…</p>;
  if (page.error)
    return (
      <p className="form-error" role="alert">
        {page.error.data?.code === "not_found" ? "There is no such chat." : page.error.message}
      </p>
    );
  const [newest] = page.data.pages;
  if (!newest) return null;
  const { conversation } = newest;
  const agent = conversation.agent;
  return (
    <>
      <title>{`${agent.displayName ?? agent.num} · Chats · Switchboard`}</title>
      <section className="card chat" aria-labelledby="chat-heading">
        <header className="chat-head">
          <span className="avatar agent" aria-hidden="true">
            {(agent.displayName ?? "A").charAt(0).toUpperCase()}
          </span>
          <div className="chat-title">
            <h1 id="chat-heading" data-testid="chat-agent-name">
              {agent.displayName ?? agent.num}
            </h1>
            <span className="mono muted">{agent.num}</span>
          </div>
          <div className="row chat-badges">
            {conversation.initiation === "reply_only" && (
              <span className="badge" data-testid="chat-reply-only">
                reply-only
              </span>
            )}
            {conversation.blocked && (
              <span className="badge warn" data-testid="chat-blocked">
                blocked
              </span>
            )}
            {!conversation.isContact && <span className="badge off">not a contact</span>}
            <button
              type="button"
              className="secondary small"
              aria-expanded={showSettings}
              onClick={() => setShowSettings((shown) => !shown)}
              data-testid="chat-settings-toggle"
            >
              Settings
            </button>
          </div>
        </header>
        {showSettings && <ChatSettings conversation={conversation} />}
        <MessageList
          conversation={conversation}
          messages={page.data.pages.toReversed().flatMap((p) => p.messages)}
          openReplies={newest.openReplies}
          older={
            page.hasNextPage
              ? { load: () => void page.fetchNextPage(), loading: page.isFetchingNextPage }
              : null
          }
        />
        <Composer conversation={conversation} />
      </section>
    </>
  );
}

function MessageList({
  conversation,
  messages,
  older,
  openReplies,
}: {
  conversation: PersonConversation;
  messages: PersonChatMessage[];
  openReplies: PersonOpenReply[];
  older: { load: () => void; loading: boolean } | null;
}) {
  const trpc = useTRPC();
  const agentId = conversation.agent.id;
  const list = useRef<HTMLOListElement>(null);
  const markRead = useMutation(trpc.chats.markRead.mutationOptions());
  const react = useMutation(trpc.chats.react.mutationOptions());
  const reactError = shownError(react.error);
  const newest = messages.at(-1);
  const lastMine = messages.findLast((m) => m.senderId !== agentId);
  const agentTyping = useUntil(conversation.agentTypingUntil);

  // Keep the newest message in view, and mark what the person now sees as read.
  const newestId = newest?.id;
  const streamedChars = openReplies.reduce((sum, reply) => sum + reply.text.length, 0);
  useEffect(() => {
    if (newestId || streamedChars) list.current?.scrollTo({ top: list.current.scrollHeight });
  }, [newestId, streamedChars]);
  const unread = conversation.unreadCount > 0 && conversation.isContact;
  const { mutate: mark } = markRead;
  useEffect(() => {
    if (unread) mark({ chat: conversation.id });
  }, [unread, mark, conversation.id]);

  return (
    <>
      {messages.length === 0 && openReplies.length === 0 ? (
        <p className="empty" data-testid="chat-empty">
          No messages yet. Say hello below.
        </p>
      ) : (
        <ol className="chat-messages" ref={list} data-testid="chat-messages" aria-live="polite">
          {older && (
            <li className="older">
              <button
                type="button"
                className="secondary small"
                disabled={older.loading}
                onClick={older.load}
                data-testid="chat-older"
              >
                {older.loading ? "Loading…" : "Show older messages"}
              </button>
            </li>
          )}
          {messages.map((message) =>
            message.action ? (
              <ApprovalCard key={message.id} message={message} action={message.action} />
            ) : (
              <MessageBubble
                key={message.id}
                message={message}
                mine={message.senderId !== agentId}
                agentId={agentId}
                showRead={message.id === lastMine?.id}
                onReact={(emoji, on) => react.mutate({ messageId: message.id, emoji, on })}
              />
            ),
          )}
          {openReplies.map((reply) => (
            <li
              key={reply.messageId}
              className="bubble theirs streaming"
              data-testid="streaming-reply"
              aria-busy="true"
            >
              <span className="bubble-text">{reply.text}</span>
              <span className="caret" aria-hidden="true" />
            </li>
          ))}
        </ol>
      )}
      <p className="typing" data-testid="agent-typing" aria-live="polite">
        {agentTyping ? `${conversation.agent.displayName ?? "The agent"} is typing…` : " "}
      </p>
      <FormError message={reactError?.message} />
    </>
  );
}

/** True until the given time passes (re-rendering when it does). */
function useUntil(until: string | null): boolean {
  const [, setTick] = useState(0);
  const remaining = until ? Date.parse(until) - Date.now() : 0;
  useEffect(() => {
    if (remaining <= 0) return;
    const timer = setTimeout(() => setTick((t) => t + 1), remaining + 50);
    return () => clearTimeout(timer);
  }, [remaining]);
  return remaining > 0;
}
