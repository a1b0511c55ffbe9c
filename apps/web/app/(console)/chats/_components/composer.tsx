"use client";

import type { PersonChatMessage, PersonConversation } from "@switchboard/contract";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import { Icon } from "~/components/icon";
import { useConnection, useOnline } from "~/components/live-updates";
import bubble from "~/components/ui/bubble.module.css";
import { buttonClass } from "~/components/ui/button";
import ui from "~/components/ui/layout.module.css";
import { useTRPC } from "~/trpc/client";
import styles from "./composer.module.css";
import { messagePreview } from "./message-preview";

/** Typing is announced at most this often while the person keeps typing. */
const TYPING_EVERY_MS = 3000;

/** A text written while offline, waiting to go out. */
interface Queued {
  key: number;
  content: string;
  replyToId?: string;
}

/** A failed call that never got an answer from the server (the network, not a refusal). */
const unreachable = (error: unknown) =>
  !(error as { data?: { code?: string } | null } | null)?.data?.code;

/**
 * Writing to the agent: text (Enter sends, Shift+Enter breaks the line) or a voice note from a
 * file. The agent sees the person typing while they type. Text written while offline (or whose
 * send never reached the server) waits here, marked as queued, and goes out in order once the
 * browser is back online. A message being replied to is quoted above the text (Escape or its
 * Cancel drops it); the text goes out as a reply to it (`replyToId`, which the agent sees).
 */
export function Composer({
  conversation,
  replyTo,
  onReplyDone,
}: {
  conversation: PersonConversation;
  replyTo: PersonChatMessage | null;
  onReplyDone: () => void;
}) {
  const trpc = useTRPC();
  const [text, setText] = useState("");
  const textBox = useRef<HTMLTextAreaElement>(null);
  // Choosing Reply puts the cursor in the text, under the quote.
  const replyId = replyTo?.id;
  useEffect(() => {
    if (replyId) textBox.current?.focus();
  }, [replyId]);
  const [queued, setQueued] = useState<Queued[]>([]);
  const nextKey = useRef(0);
  const lastTyping = useRef(0);
  const online = useOnline();
  // The live link coming back is the other sign the server can be reached again.
  const live = useConnection().link === "live";
  const send = useMutation(trpc.chats.send.mutationOptions());
  const typing = useMutation(trpc.chats.typing.mutationOptions());
  // A text that could not get through is queued, not an error.
  const error = queued.length > 0 && unreachable(send.error) ? null : shownError(send.error);
  const chat = conversation.id;
  const { mutateAsync } = send;

  // Back online: send what waited, oldest first, one at a time (each success re-runs this for
  // the next); a send that still cannot get through waits for the next change of network.
  const sending = useRef<number | null>(null);
  const first = queued[0];
  // biome-ignore lint/correctness/useExhaustiveDependencies: the link coming back retries.
  useEffect(() => {
    if (!online || !first || sending.current === first.key) return;
    sending.current = first.key;
    mutateAsync({ chat, message: textMessage(first.content, first.replyToId) }).then(
      () => setQueued((all) => all.filter((q) => q.key !== first.key)),
      (failure) => {
        sending.current = null;
        if (!unreachable(failure)) setQueued((all) => all.filter((q) => q.key !== first.key));
      },
    );
  }, [online, live, first, chat, mutateAsync]);

  if (conversation.blocked)
    return (
      <p className={ui.hint}>You blocked this agent. Unblock it in Settings to write to it.</p>
    );
  if (!conversation.isContact) return <NotAContact num={conversation.agent.num} />;

  const queue = (content: string, replyToId: string | undefined) =>
    setQueued((all) => [...all, { key: nextKey.current++, content, replyToId }]);
  const sendText = () => {
    const content = text.trim();
    if (!content || send.isPending) return;
    const replyToId = replyTo?.id;
    setText("");
    onReplyDone();
    lastTyping.current = 0;
    if (!online) {
      queue(content, replyToId);
      return;
    }
    send.mutate(
      { chat, message: textMessage(content, replyToId) },
      {
        onError: (failure) => {
          if (unreachable(failure)) queue(content, replyToId);
          else setText(content);
        },
      },
    );
  };
  const sendVoice = (file: File) => {
    const reader = new FileReader();
    reader.onload = () =>
      send.mutate({ chat, message: { type: "voice", audioData: String(reader.result) } });
    reader.readAsDataURL(file);
  };

  return (
    <form
      className={styles.composer}
      aria-describedby={queued.length > 0 ? "composer-queued" : undefined}
      onSubmit={(event) => {
        event.preventDefault();
        sendText();
      }}
    >
      {queued.length > 0 && (
        <ol className={styles.queued} id="composer-queued" data-testid="composer-queued">
          {queued.map((item) => (
            <li
              key={item.key}
              className={`${bubble.bubble} ${styles.queuedMessage}`}
              data-testid="queued-message"
            >
              <span className={bubble.text}>{item.content}</span>
              <span className={bubble.meta}>
                {online ? "Sending…" : "Queued · goes out when you're back online"}
              </span>
            </li>
          ))}
        </ol>
      )}
      {replyTo && (
        <div className={styles.replying} data-testid="composer-reply">
          <blockquote className={styles.replyQuote}>
            <span className={styles.replyWho}>
              Replying to{" "}
              {replyTo.senderId === conversation.agent.id
                ? (conversation.agent.displayName ?? conversation.agent.num)
                : "your message"}
            </span>
            <span className={styles.replyText}>
              {messagePreview(replyTo, replyTo.senderId === conversation.agent.id)}
            </span>
          </blockquote>
          <button
            type="button"
            className={styles.replyCancel}
            aria-label="Cancel the reply"
            onClick={() => {
              onReplyDone();
              textBox.current?.focus();
            }}
            data-testid="composer-reply-cancel"
          >
            ×
          </button>
        </div>
      )}
      <div className={styles.row}>
        <label className={ui.visuallyHidden} htmlFor="composer-text">
          Message
        </label>
        <textarea
          ref={textBox}
          id="composer-text"
          className={styles.text}
          rows={1}
          placeholder="Write a message"
          value={text}
          onChange={(event) => {
            setText(event.target.value);
            if (Date.now() - lastTyping.current > TYPING_EVERY_MS) {
              lastTyping.current = Date.now();
              typing.mutate({ chat, typing: true });
            }
          }}
          onKeyDown={(event) => {
            if (event.key === "Enter" && !event.shiftKey) {
              event.preventDefault();
              sendText();
            } else if (event.key === "Escape" && replyTo) {
              event.preventDefault();
              onReplyDone();
            }
          }}
          data-testid="composer-text"
        />
        <label className={styles.fileButton} title="Send an audio file as a voice note">
          <Icon name="mic" />
          <span className={styles.word}>Voice note</span>
          <input
            type="file"
            accept="audio/*"
            className={ui.visuallyHidden}
            aria-label="Voice note"
            onChange={(event) => {
              const file = event.target.files?.[0];
              if (file) sendVoice(file);
              event.target.value = "";
            }}
            data-testid="composer-voice"
          />
        </label>
        <button
          type="submit"
          className={buttonClass({}, styles.send)}
          aria-label="Send"
          disabled={send.isPending || !text.trim()}
          data-testid="composer-send"
        >
          <Icon name="send" />
          <span className={styles.word}>Send</span>
        </button>
      </div>
      <FormError message={error?.message} testId="composer-error" />
    </form>
  );
}

/** A text message, replying to `replyToId` when given. */
const textMessage = (content: string, replyToId: string | undefined) => ({
  type: "text" as const,
  content,
  ...(replyToId && { replyToId }),
});

function NotAContact({ num }: { num: string }) {
  return (
    <p className={ui.hint} data-testid="chat-not-contact">
      This agent is not in your contacts, so it cannot reach you.{" "}
      <Link href={`/chats/add?agent=${num}`}>Add it again</Link>
    </p>
  );
}
