import { z } from "zod";
import { DateTime } from "./common";
import { AgentUser } from "./users";

/**
 * Calls between people (agents do not join calls). The messaging service's call system reports
 * each ended call once, with its transcript and one summary per participant; agents hear of it
 * through `call.ended` (events.ts), which caps the transcript at MAX_CALL_TRANSCRIPT_BYTES.
 */

/** The transcript the service keeps of one call (UTF-8 bytes); the event carries at most 32 KB. */
export const MAX_STORED_CALL_TRANSCRIPT_BYTES = 1024 * 1024;
/** Characters of one participant's summary. */
export const MAX_CALL_SUMMARY_CHARS = 4000;
/** People on one call. */
export const MAX_CALL_PARTICIPANTS = 32;
/** A call lasts at most a day. */
export const MAX_CALL_DURATION_S = 24 * 3600;

/** Size of text in UTF-8, the unit transcript caps are in. */
export const utf8Bytes = (value: string) => new TextEncoder().encode(value).length;

/** One person on the call: who (id or number), and their own summary. */
export const EndCallParticipant = z.strictObject({
  user: z.string().min(1, "must be a user id or number"),
  /** Null when the call could not be transcribed. */
  summary: z
    .string()
    .min(1, `must be 1-${MAX_CALL_SUMMARY_CHARS} characters`)
    .max(MAX_CALL_SUMMARY_CHARS, `must be 1-${MAX_CALL_SUMMARY_CHARS} characters`)
    .nullish(),
});
export type EndCallParticipant = z.infer<typeof EndCallParticipant>;

/**
 * What the call system reports when a call ends. A 1:1 call has exactly two people, a group
 * call two or more. Without a transcript (the call could not be transcribed) there are no
 * summaries either. The call ended now; it started `duration` seconds ago.
 */
export const EndCallRequest = z
  .strictObject({
    participants: z
      .array(EndCallParticipant)
      .min(2, "a call has at least two people")
      .max(MAX_CALL_PARTICIPANTS, `a call has at most ${MAX_CALL_PARTICIPANTS} people`),
    isGroup: z.boolean().default(false),
    duration: z
      .number()
      .int("must be a whole number of seconds")
      .min(0, "must be at least 0")
      .max(MAX_CALL_DURATION_S, `must be at most ${MAX_CALL_DURATION_S} seconds`)
      .default(0),
    transcript: z
      .string()
      .min(1, "must not be empty")
      .refine(
        (value) => utf8Bytes(value) <= MAX_STORED_CALL_TRANSCRIPT_BYTES,
        `must be at most ${MAX_STORED_CALL_TRANSCRIPT_BYTES} bytes`,
      )
      .nullish(),
  })
  .superRefine((call, ctx) => {
    if (!call.isGroup && call.participants.length !== 2)
      ctx.addIssue({
        code: "custom",
        path: ["participants"],
        message: "a 1:1 call has exactly two people; mark a larger call as a group call",
      });
    if (call.transcript == null)
      call.participants.forEach((participant, i) => {
        if (participant.summary != null)
          ctx.addIssue({
            code: "custom",
            path: ["participants", i, "summary"],
            message: "a call without a transcript has no summaries",
          });
      });
  });
export type EndCallRequest = z.input<typeof EndCallRequest>;

/** A call as one of its people sees it in their apps: their own summary, the shared transcript. */
export const PersonCall = z.object({
  id: z.string(),
  isGroup: z.boolean(),
  participants: z.array(AgentUser),
  startedAt: DateTime,
  endedAt: DateTime,
  /** Seconds. */
  duration: z.number().int().min(0),
  summary: z.string().nullable(),
  transcript: z.string().nullable(),
});
export type PersonCall = z.infer<typeof PersonCall>;
