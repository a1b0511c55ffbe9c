import { MAX_CONTENT_CHARS } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, eq, ne } from "drizzle-orm";
import { z } from "zod";
import type { CoreDeps } from "../deps";
import { CoreError, parseInput } from "../errors";
import { appendEvents } from "../events/append-event";
import { notifyTopics, userTopic } from "../events/notifier";
import { agentUserColumns, toAgentUser } from "../identity/users";
import { messageTranscriptEvent } from "./message-events";

const { agentContacts, messages, users } = schema;

const TranscriptText = z.string().trim().min(1).max(MAX_CONTENT_CHARS);

/**
 * A person's voice note to an agent has its transcript (from the transcription service, or the
 * CLI's `transcript` command): it is stored on the message and the agent gets
 * `message.transcript` in the same transaction — always after the note's `message.received`,
 * which committed with the note — masked, when read, without the person's `messages:read`. Agents' own
 * notes are not transcribed by the service.
 */
export async function setMessageTranscript(
  deps: CoreDeps,
  messageId: string,
  text: string,
): Promise<void> {
  await storeTranscript(deps, messageId, parseInput(TranscriptText, text, "text"), {
    keepExisting: false,
  });
}

/**
 * The transcription job's ending (voice/transcribe-voice-note.ts): the text, or null when it gave
 * up (`message.transcript` still fires, with `transcript: null`). A transcript already there
 * (the CLI's, say) is kept: answers false and fires nothing.
 */
export function recordTranscriptionResult(
  deps: CoreDeps,
  messageId: string,
  transcript: string | null,
): Promise<boolean> {
  return storeTranscript(deps, messageId, transcript, { keepExisting: true });
}

async function storeTranscript(
  deps: CoreDeps,
  messageId: string,
  transcript: string | null,
  { keepExisting }: { keepExisting: boolean },
): Promise<boolean> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .select({ message: messages, contact: agentContacts, sender: agentUserColumns })
      .from(messages)
      .innerJoin(users, eq(users.id, messages.senderId))
      .leftJoin(
        agentContacts,
        and(
          eq(agentContacts.conversationId, messages.conversationId),
          eq(agentContacts.userId, messages.senderId),
          ne(agentContacts.agentId, messages.senderId),
        ),
      )
      .where(eq(messages.id, messageId))
      .for("update", { of: messages });
    if (!row) throw new CoreError("not_found", `No message ${messageId}`);
    if (row.message.type !== "voice")
      throw new CoreError("validation_error", "Only voice notes have transcripts", {
        issues: [{ path: "message", message: "not a voice note" }],
      });
    if (!row.contact)
      throw new CoreError(
        "validation_error",
        "Only a person's voice note to an agent is transcribed by the service",
        { issues: [{ path: "message", message: "not a person's voice note to an agent" }] },
      );
    if (keepExisting && row.message.transcript !== null) return false;
    await tx.update(messages).set({ transcript }).where(eq(messages.id, messageId));
    await notifyTopics(tx, [userTopic(row.sender.id, `chat:${row.message.conversationId}`)]);
    await appendEvents(tx, now, [
      messageTranscriptEvent(row.contact.agentId, toAgentUser(row.sender), row.message, transcript),
    ]);
    return true;
  });
}
