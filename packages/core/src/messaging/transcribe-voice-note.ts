import type { MessageMedia } from "@switchboard/contract";
import { schema, type Tx } from "@switchboard/db";
import { eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { enqueueJob } from "../jobs/enqueue-job";
import { log } from "../log";
import { objectIdFromPath, objectStoreOf } from "../objects/object-store";
import type { MessageRow } from "../sending/compose-message";
import { transcribeAudio, transcriptionSetup } from "../voice/speech-to-text";
import { recordTranscriptionResult } from "./set-message-transcript";

const { messages } = schema;

/** Tries per note before the job gives up and the note's transcript is null. */
export const TRANSCRIBE_ATTEMPTS = 3;

/**
 * A person's voice note to an agent without a transcript gets a transcription job, committed
 * with the note (inside the send's transaction). Every such note gets one, engine or not: the
 * job always ends with a `message.transcript`, so an agent waiting for it never waits forever.
 */
export async function enqueueTranscription(
  tx: Tx,
  message: Pick<MessageRow, "id" | "type" | "transcript">,
): Promise<void> {
  if (message.type !== "voice" || message.transcript !== null) return;
  await enqueueJob(
    tx,
    "message_transcribe",
    { messageId: message.id },
    { maxAttempts: TRANSCRIBE_ATTEMPTS },
  );
}

/**
 * The `message_transcribe` job: the note's audio through the engine, then `message.transcript`
 * (setMessageTranscript's path). A failed try throws, so the queue retries it; the last one
 * gives up with `transcript: null`, and so does, at once, a worker with no engine installed, a
 * note whose audio is gone or an engine that heard nothing. A transcript set meanwhile (the
 * CLI's) is kept.
 */
export async function transcribeVoiceNote(
  deps: CoreDeps,
  messageId: string,
  { lastAttempt }: { lastAttempt: boolean },
): Promise<void> {
  const [row] = await deps.db.select().from(messages).where(eq(messages.id, messageId));
  if (row?.type !== "voice" || row.transcript !== null) return;
  const audio = (row.media as MessageMedia | null)?.audio;
  const objectId = audio ? objectIdFromPath(audio.data) : null;
  const engine = transcriptionSetup(deps.config).engine;
  const stored = engine && objectId ? await objectStoreOf(deps).get(deps.db, objectId) : null;
  let text: string | null = null;
  if (stored) {
    try {
      text = await transcribeAudio(deps.config, stored.bytes);
    } catch (error) {
      if (!lastAttempt) throw error;
      log.warn({ messageId, reason: String(error) }, "transcription gave up");
    }
  }
  await recordTranscriptionResult(deps, messageId, text);
}
