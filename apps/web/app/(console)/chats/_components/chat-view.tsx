"use client";

import type { PersonChatMessage, PersonConversation, PersonOpenReply } from "@switchboard/contract";
import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { Fragment, type RefObject, Suspense, useEffect, useRef, useState } from "react";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import { formatDayLabel, localDayKey } from "~/components/format";
import { Icon } from "~/components/icon";
import { type OlderPage, olderPageOf, ShowOlder } from "~/components/paged-list";
import type { CardTarget } from "~/components/proposal-words";
import { Badge } from "~/components/ui/badge";
import bubble from "~/components/ui/bubble.module.css";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { EmptyState } from "~/components/ui/empty-state";
import ui from "~/components/ui/layout.module.css";
import { Skeleton } from "~/components/ui/skeleton";
import { useReaderTimes } from "~/components/ui/time";
import { useTRPC } from "~/trpc/client";
import { AgentAvatar } from "./agent-avatar";
import { ApprovalCard } from "./approval-card";
import styles from "./chat.module.css";
import { ChatSettings } from "./chat-settings";
import { Composer } from "./composer";
import { MessageBubble } from "./message-bubble";
import { runPlaces } from "./message-runs";

/**
 * One chat with an agent, kept live by the console: a header with who the agent is (state, bio,
 * owner), messages oldest first with the newest in view, the agent's typing, read state and
 * reactions; reading the chat marks it read. Settings open in a side panel beside the chat.
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
  // The message the person is replying to (quoted in the composer until sent or cancelled).
  const [replyTo, setReplyTo] = useState<PersonChatMessage | null>(null);
  // Closing the settings gives focus back to the button that opened them.
  const settingsToggle = useRef<HTMLButtonElement>(null);
  const closeSettings = () => {
    setShowSettings(false);
    settingsToggle.current?.focus();
  };

  if (page.isPending)
    return (
      <>
        <title>Chats · Switchboard</title>
        <Skeleton lines={5} label="the chat" />
      </>
    );
  if (page.error)
    return (
      <Card as="div">
        <title>
          {page.error.data?.code === "not_found"
            ? "Chat not found · Chats · Switchboard"
            : "Chats · Switchboard"}
        </title>
        <BackToChats />
        <p className={ui.formError} role="alert">
          {page.error.data?.code === "not_found"
            ? "There is no such chat. Pick one from your chats, or add an agent."
            : shownError(page.error)?.message}
        </p>
      </Card>
    );
  const [newest] = page.data.pages;
  if (!newest) return null;
  const { conversation } = newest;
  const agent = conversation.agent;
  const targets = new Map(
    page.data.pages.flatMap((p) => p.targets).map((target) => [target.actionId, target]),
  );
  return (
    <div className={showSettings ? `${styles.layout} ${styles.withPanel}` : styles.layout}>
      <title>{`${agent.displayName ?? agent.num} · Chats · Switchboard`}</title>
      <Card className={styles.thread} aria-labelledby="chat-heading">
        <ChatHeader
          conversation={conversation}
          settingsOpen={showSettings}
          settingsToggle={settingsToggle}
          onToggleSettings={() => setShowSettings((shown) => !shown)}
        />
        {/* Its own boundary: hydrating a page of messages waits until the composer takes input
            (React hydrates a server-rendered boundary after what is around it). Nothing in it
            suspends the boundary itself: each markdown body has its own. */}
        <Suspense>
          <MessageList
            conversation={conversation}
            messages={page.data.pages.toReversed().flatMap((p) => p.messages)}
            openReplies={newest.openReplies}
            targets={targets}
            older={olderPageOf(page)}
            onReply={setReplyTo}
          />
        </Suspense>
        <Composer
          conversation={conversation}
          replyTo={replyTo?.conversationId === conversation.id ? replyTo : null}
          onReplyDone={() => setReplyTo(null)}
        />
      </Card>
      {showSettings && <ChatSettings conversation={conversation} onClose={closeSettings} />}
    </div>
  );
}

/** On a phone the chat is its own screen; this leads back to the list. */
function BackToChats({ className }: { className?: string }) {
  return (
    <Link
      href="/chats"
      className={className ? `${ui.backLink} ${className}` : ui.backLink}
      aria-label="Back to chats"
      data-testid="chat-back"
    >
      <Icon name="back" />
      <span className={styles.backLabel}>Chats</span>
    </Link>
  );
}

/** Who the agent is: name and number, its state in words, its bio and its owner. */
function ChatHeader({
  conversation,
  settingsOpen,
  settingsToggle,
  onToggleSettings,
}: {
  conversation: PersonConversation;
  settingsOpen: boolean;
  settingsToggle: RefObject<HTMLButtonElement | null>;
  onToggleSettings: () => void;
}) {
  const trpc = useTRPC();
  const agent = conversation.agent;
  // A pause or a new bio wakes the person's tabs too (`agent:<id>`), so no timer.
  const about = useQuery(trpc.chats.agent.queryOptions({ chat: conversation.id }));
  const name = agent.displayName ?? agent.num;
  return (
    <header className={styles.head}>
      <BackToChats className={styles.headBack} />
      <AgentAvatar agent={agent} />
      <div className={styles.title}>
        <h1 id="chat-heading" data-testid="chat-agent-name" className={ui.truncate} title={name}>
          {name}
        </h1>
        <p
          className={styles.subtitle}
          title={
            about.data?.owner?.displayName ? `Run by ${about.data.owner.displayName}` : undefined
          }
        >
          <span className={ui.mono}>{agent.num}</span>
          {about.data?.owner?.displayName && (
            <span data-testid="chat-agent-owner"> · by {about.data.owner.displayName}</span>
          )}
        </p>
      </div>
      <Button
        ref={settingsToggle}
        variant="secondary"
        small
        className={styles.settingsToggle}
        aria-expanded={settingsOpen}
        aria-controls={settingsOpen ? "chat-settings" : undefined}
        aria-label="Settings"
        onClick={onToggleSettings}
        data-testid="chat-settings-toggle"
      >
        <Icon name="settings" />
        <span>Settings</span>
      </Button>
      <div className={styles.facts}>
        <div className={`${ui.row} ${styles.badges}`}>
          {about.data?.paused && (
            <Badge tone="warn" data-testid="chat-agent-paused">
              paused
            </Badge>
          )}
          {conversation.initiation === "reply_only" && (
            <Badge data-testid="chat-reply-only">reply-only</Badge>
          )}
          {conversation.blocked && (
            <Badge tone="warn" data-testid="chat-blocked">
              blocked
            </Badge>
          )}
          {!conversation.isContact && <Badge tone="off">not a contact</Badge>}
        </div>
        {about.data?.paused && (
          <p className={styles.state} data-testid="chat-agent-state">
            Paused: it won't answer until its owner resumes it.
          </p>
        )}
        {about.data?.bio && (
          <p className={`${ui.muted} ${styles.bio}`} data-testid="chat-agent-bio">
            {about.data.bio}
          </p>
        )}
      </div>
    </header>
  );
}

function MessageList({
  conversation,
  messages,
  older,
  openReplies,
  targets,
  onReply,
}: {
  conversation: PersonConversation;
  messages: PersonChatMessage[];
  openReplies: PersonOpenReply[];
  targets: Map<string, CardTarget>;
  older: OlderPage | null;
  onReply: (message: PersonChatMessage) => void;
}) {
  useReaderTimes(); // day separators
  const trpc = useTRPC();
  const agentId = conversation.agent.id;
  const list = useRef<HTMLOListElement>(null);
  const markRead = useMarkRead(conversation.id);
  const react = useMutation(trpc.chats.react.mutationOptions());
  const reactError = shownError(react.error);
  const newest = messages.at(-1);
  const lastMine = messages.findLast((m) => m.senderId !== agentId);
  const agentTyping = useUntil(conversation.agentTypingUntil);
  const places = runPlaces(messages);
  const byId = new Map(messages.map((message) => [message.id, message]));

  // Keep the newest message in view while the person is at the bottom: when one arrives, and
  // when the list changes size (the header or composer growing, the phone turning).
  const atBottom = useRef(true);
  const newestId = newest?.id;
  const streamedChars = openReplies.reduce((sum, reply) => sum + reply.text.length, 0);
  useEffect(() => {
    if (newestId || streamedChars) list.current?.scrollTo({ top: list.current.scrollHeight });
  }, [newestId, streamedChars]);
  const hasList = messages.length > 0 || openReplies.length > 0;
  useEffect(() => {
    const element = list.current;
    if (!hasList || !element) return;
    const onScroll = () => {
      atBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < 48;
    };
    const observer = new ResizeObserver(() => {
      if (atBottom.current) element.scrollTo({ top: element.scrollHeight });
    });
    element.addEventListener("scroll", onScroll, { passive: true });
    observer.observe(element);
    return () => {
      element.removeEventListener("scroll", onScroll);
      observer.disconnect();
    };
  }, [hasList]);
  const unread = conversation.unreadCount > 0 && conversation.isContact;
  const { mutate: mark } = markRead;
  useEffect(() => {
    if (unread) mark({ chat: conversation.id });
  }, [unread, mark, conversation.id]);

  return (
    <>
      {messages.length === 0 && openReplies.length === 0 ? (
        <div className={styles.emptyThread}>
          <EmptyState data-testid="chat-empty">No messages yet. Say hello below.</EmptyState>
        </div>
      ) : (
        <ol className={styles.messages} ref={list} data-testid="chat-messages" aria-live="polite">
          {older && (
            <li className={styles.older}>
              <ShowOlder older={older} what="messages" testId="chat-older" />
            </li>
          )}
          {messages.map((message, i) => {
            const before = messages[i - 1];
            const newDay =
              !before || localDayKey(before.createdAt) !== localDayKey(message.createdAt);
            return (
              <Fragment key={message.id}>
                {newDay && (
                  <li className={styles.day} data-testid="day-separator">
                    <span>{formatDayLabel(message.createdAt)}</span>
                  </li>
                )}
                {message.action ? (
                  <ApprovalCard
                    message={message}
                    action={message.action}
                    target={targets.get(message.action.id)}
                  />
                ) : (
                  <MessageBubble
                    message={message}
                    mine={message.senderId !== agentId}
                    agentId={agentId}
                    agentName={conversation.agent.displayName ?? conversation.agent.num}
                    showRead={message.id === lastMine?.id}
                    continued={places[i]?.continued ?? false}
                    last={places[i]?.last ?? true}
                    quoted={message.replyToId ? (byId.get(message.replyToId) ?? null) : undefined}
                    onReact={(emoji, on) => react.mutate({ messageId: message.id, emoji, on })}
                    onReply={() => onReply(message)}
                  />
                )}
              </Fragment>
            );
          })}
          {openReplies.map((reply) => (
            <li
              key={reply.messageId}
              className={`${bubble.bubble} ${bubble.theirs} ${bubble.streaming}`}
              data-testid="streaming-reply"
              aria-busy="true"
            >
              <span className={bubble.text}>{reply.text}</span>
              <span className={styles.caret} aria-hidden="true" />
            </li>
          ))}
        </ol>
      )}
      <p className={styles.typing} data-testid="agent-typing" aria-live="polite">
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

/**
 * Marks the chat read, clearing its unread counts in this tab at once: the read mark's wake-up
 * (`read:<id>`) then finds nothing here to re-read, so a message arriving in an open chat costs
 * one re-read. Other tabs re-read their counts; a failure re-reads them here.
 */
function useMarkRead(conversationId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pageKey = trpc.chats.page.infiniteQueryKey({ chat: conversationId });
  const listKey = trpc.chats.list.infiniteQueryKey({});
  return useMutation(
    trpc.chats.markRead.mutationOptions({
      onMutate: () => {
        queryClient.setQueryData(
          pageKey,
          (data) =>
            data && {
              ...data,
              pages: data.pages.map((page) => ({
                ...page,
                conversation: { ...page.conversation, unreadCount: 0 },
              })),
            },
        );
        queryClient.setQueryData(
          listKey,
          (list) =>
            list && {
              ...list,
              pages: list.pages.map((page) => ({
                ...page,
                chats: page.chats.map((chat) =>
                  chat.id === conversationId ? { ...chat, unreadCount: 0 } : chat,
                ),
              })),
            },
        );
      },
      onError: () => {
        void queryClient.invalidateQueries({ queryKey: pageKey });
        void queryClient.invalidateQueries({ queryKey: listKey });
      },
    }),
  );
}
