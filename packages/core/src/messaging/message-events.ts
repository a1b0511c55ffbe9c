import type {
  AgentMessage,
  AgentUser,
  MessageReceivedPayload,
  MessageTranscriptPayload,
} from "@switchboard/contract";
import type { NewEvent } from "../events/append-event";

/**
 * `message.received` for a person's message to an agent, stored whole: whether the agent sees
 * the message or `message: null` with `accessDenied` is decided by the person's grant when the
 * event is read (events/event-visibility.ts). A voice note carries its audio and never its
 * transcript (that comes as `message.transcript`).
 */
export function messageReceivedEvent(
  agentId: string,
  from: AgentUser,
  message: AgentMessage,
): NewEvent {
  const { transcript: _never, ...shown } = message;
  const payload: MessageReceivedPayload = {
    conversationId: message.conversationId,
    from,
    message: shown,
  };
  return { agentId, personId: from.id, type: "message.received", payload };
}

/**
 * `message.transcript` for a person's voice note; masked like `message.received` when read.
 * `transcript` is null when transcription gave up.
 */
export function messageTranscriptEvent(
  agentId: string,
  from: AgentUser,
  message: { id: string; conversationId: string },
  transcript: string | null,
): NewEvent {
  const payload: MessageTranscriptPayload = {
    conversationId: message.conversationId,
    messageId: message.id,
    from,
    transcript,
  };
  return { agentId, personId: from.id, type: "message.transcript", payload };
}
