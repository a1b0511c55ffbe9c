"use client";

import type { PersonChatMessage } from "@switchboard/contract";
import { lazy, Suspense, useEffect, useState } from "react";
import { mapsUrl } from "~/components/link-parts";
import { LinkifiedText } from "~/components/linkified-text";
import bubble from "~/components/ui/bubble.module.css";
import ui from "~/components/ui/layout.module.css";
import { RelativeTime } from "~/components/ui/time";
import styles from "./chat.module.css";
import { messagePreview } from "./message-preview";
import { ReactionMenu, type ReactionSummary } from "./reaction-menu";
import { ZoomableImage } from "./zoomable-image";

/** Where the console can load a message's media: stored objects through the session route. */
function mediaSrc(message: PersonChatMessage, data: string | undefined): string | undefined {
  if (!data) return undefined;
  return data.startsWith("/objects/") ? `/api/console/media/${message.id}` : data;
}

/**
 * One message of a chat: its body by type (agent text as safe markdown, voice notes play with
 * their words once, images open larger, places link to a map), the message it replies to quoted
 * above it, reactions shown under it, and on the person's own messages whether the agent read
 * them. `continued` marks a message that follows one from the same sender, as chat apps group
 * them; only the `last` of such a run shows its time (the others keep it for screen readers, and
 * show it while focus is in them). Its one menu (react, reply, copy) shows on hover or focus.
 */
export function MessageBubble({
  message,
  mine,
  agentId,
  agentName,
  showRead,
  continued,
  last,
  quoted,
  onReact,
  onReply,
}: {
  message: PersonChatMessage;
  mine: boolean;
  agentId: string;
  /** How the chat names the agent (its display name, else its number). */
  agentName: string;
  showRead: boolean;
  continued: boolean;
  last: boolean;
  /** The message it replies to, when loaded (undefined when it replies to none). */
  quoted: PersonChatMessage | null | undefined;
  onReact: (emoji: string, on: boolean) => void;
  onReply: () => void;
}) {
  const [copy, copied] = useCopy(copyText(message));
  const counts = new Map<string, ReactionSummary>();
  for (const r of message.reactions) {
    const entry = counts.get(r.emoji) ?? { emoji: r.emoji, count: 0, mine: false };
    counts.set(r.emoji, {
      ...entry,
      count: entry.count + 1,
      mine: entry.mine || r.userId !== agentId,
    });
  }
  return (
    <li
      className={[
        bubble.bubble,
        !mine && `${bubble.theirs} ${styles.theirs}`,
        styles.message,
        continued ? styles.continued : styles.first,
      ]
        .filter(Boolean)
        .join(" ")}
      data-testid="chat-message"
      data-message-id={message.id}
      data-sender={mine ? "me" : "agent"}
    >
      {message.replyToId && <Quote quoted={quoted} agentId={agentId} agentName={agentName} />}
      <MessageBody message={message} fromAgent={!mine} />
      {counts.size > 0 && (
        <ul className={styles.reactions} data-testid="message-reactions" aria-label="Reactions">
          {[...counts.values()].map(({ emoji, count, mine: own }) => (
            <li key={emoji} className={own ? styles.ownReaction : undefined}>
              {emoji}
              {count > 1 && <span className={styles.count}>{count}</span>}
              {own && <span className={ui.visuallyHidden}> (yours)</span>}
            </li>
          ))}
        </ul>
      )}
      <div className={last || showRead ? bubble.meta : `${bubble.meta} ${styles.quietMeta}`}>
        <span className={styles.actions} data-testid="message-actions">
          <ReactionMenu
            reactions={counts}
            onReact={onReact}
            actions={[
              { label: "Reply", onSelect: onReply, testId: "reply-button" },
              ...(copyText(message)
                ? [{ label: "Copy text", onSelect: copy, testId: "copy-button" }]
                : []),
            ]}
          />
        </span>
        <span role="status" data-testid="copy-state">
          {copied === "copied" ? "Copied" : copied === "failed" ? "Could not copy" : ""}
        </span>
        <RelativeTime iso={message.createdAt} className={last ? undefined : styles.runTime} />
        {mine && showRead && (
          <span data-testid="message-read-state">{message.readByOther ? "Read" : "Sent"}</span>
        )}
      </div>
    </li>
  );
}

/** The words a message's Copy puts on the clipboard: its text, or a voice note's transcript. */
function copyText(message: PersonChatMessage): string {
  return message.content.trim() ? message.content : (message.transcript?.trim() ?? "");
}

/** Copies text to the clipboard; says how it went for a moment (and to screen readers). */
function useCopy(text: string): [() => void, "copied" | "failed" | null] {
  const [state, setState] = useState<"copied" | "failed" | null>(null);
  useEffect(() => {
    if (!state) return;
    const timer = setTimeout(() => setState(null), 2000);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = () =>
    void navigator.clipboard.writeText(text).then(
      () => setState("copied"),
      () => setState("failed"),
    );
  return [copy, state];
}

/** The message a reply quotes: who wrote it (the agent by its name) and its first words. */
function Quote({
  quoted,
  agentId,
  agentName,
}: {
  quoted: PersonChatMessage | null | undefined;
  agentId: string;
  agentName: string;
}) {
  const fromAgent = quoted?.senderId === agentId;
  return (
    <blockquote className={styles.quote} data-testid="message-quote">
      <span className={styles.quoteWho}>
        {quoted ? `Replying to ${fromAgent ? agentName : "you"}` : "Replying"}
      </span>
      <span className={styles.quoteText}>
        {quoted ? messagePreview(quoted, fromAgent) : "an earlier message"}
      </span>
    </blockquote>
  );
}

/**
 * The markdown renderer is the largest script a chat needs; loaded on its own, it keeps the
 * composer from waiting for it. The server renders the markdown either way; in the browser a
 * bubble whose renderer has not loaded yet shows its text plain.
 */
const Markdown = lazy(() => import("~/components/markdown").then((m) => ({ default: m.Markdown })));

function MessageBody({ message, fromAgent }: { message: PersonChatMessage; fromAgent: boolean }) {
  const text = (value: string) =>
    fromAgent ? (
      <Suspense fallback={<span className={bubble.text}>{value}</span>}>
        <Markdown text={value} />
      </Suspense>
    ) : (
      <span className={bubble.text}>
        <LinkifiedText text={value} />
      </span>
    );
  const caption = message.content ? text(message.content) : null;
  switch (message.type) {
    case "voice": {
      // A spoken (TTS) note's words are both its caption and its transcript: show them once,
      // also when the caption is the same words with markdown around them.
      const transcript = message.transcript?.trim();
      const sameWords = transcript && plainWords(transcript) === plainWords(message.content);
      return (
        <>
          <audio
            controls
            preload="metadata"
            src={mediaSrc(message, message.audio?.data)}
            data-testid="voice-player"
          >
            <track kind="captions" />
          </audio>
          {transcript && (
            <p className={styles.transcript} data-testid="voice-transcript">
              <span className={ui.visuallyHidden}>Transcript: </span>
              {transcript}
            </p>
          )}
          {!sameWords && caption}
        </>
      );
    }
    case "image":
      return (
        <>
          <ZoomableImage
            src={mediaSrc(message, message.image?.data)}
            alt={message.content || "Image from the chat"}
            caption={message.content || undefined}
          />
          {caption}
        </>
      );
    case "sticker":
      return (
        <>
          {/* biome-ignore lint/performance/noImgElement: chat media is served by our own route. */}
          <img
            className={bubble.image}
            src={mediaSrc(message, message.image?.data)}
            alt={message.content || "Sticker from the chat"}
          />
          {caption}
        </>
      );
    case "video":
      return (
        <>
          {/* biome-ignore lint/a11y/useMediaCaption: agents send no caption tracks. */}
          <video className={bubble.image} controls src={mediaSrc(message, message.video?.data)} />
          {caption}
        </>
      );
    case "location": {
      const map = message.location
        ? mapsUrl(message.location.latitude, message.location.longitude)
        : null;
      return (
        <div className={styles.place} data-testid="message-location">
          <span aria-hidden="true">📍</span>
          <div>
            <div>{message.content || "A shared location"}</div>
            {map && (
              <a
                href={map}
                target="_blank"
                rel="noopener noreferrer nofollow"
                className={bubble.link}
                data-testid="open-in-maps"
              >
                Open in maps
              </a>
            )}
          </div>
        </div>
      );
    }
    case "contact":
      return (
        <span className={bubble.text}>
          👤 {message.sharedContact?.name ?? "Contact"}{" "}
          <span className={ui.mono}>{message.sharedContact?.num}</span>
        </span>
      );
    case "document":
      return (
        <>
          <a
            href={mediaSrc(message, message.document?.data)}
            download={message.document?.name ?? true}
          >
            📄 {message.document?.name ?? "Document"}
          </a>
          {caption}
        </>
      );
    default:
      return caption;
  }
}

/** A text's words without markdown's marks or spacing, to tell whether two texts say the same. */
const plainWords = (text: string) =>
  text
    .replace(/[*_`~#>]/g, "")
    .replace(/\s+/g, " ")
    .trim();
