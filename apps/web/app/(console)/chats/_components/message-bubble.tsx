"use client";

import type { PersonChatMessage } from "@switchboard/contract";
import { formatTime } from "~/components/format";
import { LinkifiedText } from "~/components/linkified-text";

/** Where the console can load a message's media: stored objects through the session route. */
function mediaSrc(message: PersonChatMessage, data: string | undefined): string | undefined {
  if (!data) return undefined;
  return data.startsWith("/objects/") ? `/api/console/media/${message.id}` : data;
}

const quickReactions = ["👍", "❤️", "😂"];

/**
 * One message of a chat: its body by type (voice notes play, images show), reactions with a
 * quick way to add or take back one's own, and on the person's own messages whether the agent
 * has read them.
 */
export function MessageBubble({
  message,
  mine,
  agentId,
  showRead,
  onReact,
}: {
  message: PersonChatMessage;
  mine: boolean;
  agentId: string;
  showRead: boolean;
  onReact: (emoji: string, on: boolean) => void;
}) {
  const counts = new Map<string, { count: number; mine: boolean }>();
  for (const r of message.reactions) {
    const entry = counts.get(r.emoji) ?? { count: 0, mine: false };
    counts.set(r.emoji, { count: entry.count + 1, mine: entry.mine || r.userId !== agentId });
  }
  return (
    <li
      className={`bubble ${mine ? "mine" : "theirs"}`}
      data-testid="chat-message"
      data-message-id={message.id}
      data-sender={mine ? "me" : "agent"}
    >
      <MessageBody message={message} />
      {counts.size > 0 && (
        <div className="reactions" data-testid="message-reactions">
          {[...counts].map(([emoji, { count, mine: own }]) => (
            <button
              type="button"
              key={emoji}
              className={`reaction ${own ? "own" : ""}`}
              aria-pressed={own}
              title={own ? "Take back your reaction" : "React with this too"}
              onClick={() => onReact(emoji, !own)}
            >
              {emoji} {count > 1 ? count : ""}
            </button>
          ))}
        </div>
      )}
      <div className="bubble-meta">
        <time dateTime={message.createdAt}>{formatTime(message.createdAt)}</time>
        {mine && showRead && (
          <span data-testid="message-read-state">{message.readByOther ? "Read" : "Sent"}</span>
        )}
        <span className="quick-react">
          {quickReactions.map((emoji) => (
            <button
              type="button"
              key={emoji}
              className="reaction"
              aria-label={`React ${emoji}`}
              onClick={() => onReact(emoji, !counts.get(emoji)?.mine)}
            >
              {emoji}
            </button>
          ))}
        </span>
      </div>
    </li>
  );
}

function MessageBody({ message }: { message: PersonChatMessage }) {
  const caption = message.content ? (
    <span className="bubble-text">
      <LinkifiedText text={message.content} />
    </span>
  ) : null;
  switch (message.type) {
    case "voice":
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
          {message.transcript && (
            <span className="transcript" data-testid="voice-transcript">
              “{message.transcript}”
            </span>
          )}
          {caption}
        </>
      );
    case "image":
    case "sticker":
      return (
        <>
          {/* biome-ignore lint/performance/noImgElement: chat media is served by our own route. */}
          <img
            className="bubble-image"
            src={mediaSrc(message, message.image?.data)}
            alt={message.content || `${message.type} from the chat`}
          />
          {caption}
        </>
      );
    case "video":
      return (
        <>
          {/* biome-ignore lint/a11y/useMediaCaption: agents send no caption tracks. */}
          <video className="bubble-image" controls src={mediaSrc(message, message.video?.data)} />
          {caption}
        </>
      );
    case "location":
      return (
        <span className="bubble-text">
          📍 {message.location?.latitude}, {message.location?.longitude}
          {message.content ? ` — ${message.content}` : ""}
        </span>
      );
    case "contact":
      return (
        <span className="bubble-text">
          👤 {message.sharedContact?.name ?? "Contact"}{" "}
          <span className="mono">{message.sharedContact?.num}</span>
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
