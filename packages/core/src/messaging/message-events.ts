import type {
  AccessDenied,
  AgentMessage,
  AgentScope,
  AgentUser,
  MessageReceivedPayload,
  MessageTranscriptPayload,
} from "@switchboard/contract";
import type { NewEvent } from "../events/append-event";

/** Why a masked event has no content. */
export function messagesReadDenied(from: AgentUser): AccessDenied {
  const who = from.displayName ?? from.num;
  return {
    scope: "messages:read",
    message: `${who} has not granted messages:read, so the content is withheld`,
  };
}

const canRead = (granted: readonly string[]) =>
  granted.includes("messages:read" satisfies AgentScope);

/**
 * `message.received` for a person's message to an agent. Without the person's
 * `messages:read`, `message` is null and `accessDenied` says why. A voice note carries its audio
 * and never its transcript (that comes as `message.transcript`).
 */
export function messageReceivedEvent(
  agentId: string,
  from: AgentUser,
  message: AgentMessage,
  granted: readonly string[],
): NewEvent {
  const { transcript: _never, ...shown } = message;
  const payload: MessageReceivedPayload = canRead(granted)
    ? { conversationId: message.conversationId, from, message: shown }
    : {
        conversationId: message.conversationId,
        from,
        message: null,
        accessDenied: messagesReadDenied(from),
      };
  return { agentId, type: "message.received", payload };
}

/** `message.transcript` for a person's voice note; masked like `message.received`. */
export function messageTranscriptEvent(
  agentId: string,
  from: AgentUser,
  message: { id: string; conversationId: string },
  transcript: string,
  granted: readonly string[],
): NewEvent {
  const base = { conversationId: message.conversationId, messageId: message.id, from };
  const payload: MessageTranscriptPayload = canRead(granted)
    ? { ...base, transcript }
    : { ...base, transcript: null, accessDenied: messagesReadDenied(from) };
  return { agentId, type: "message.transcript", payload };
}
