import { z } from "zod";
import { DateTime } from "./common";

/** Every event travels in this envelope over long-poll, webhook and WebSocket. */
export const AgentEvent = z.object({
  id: z.string(),
  seq: z.number().int(),
  type: z.string(),
  ts: DateTime,
  agentId: z.string(),
  payload: z.record(z.string(), z.unknown()),
});
export type AgentEvent = z.infer<typeof AgentEvent>;

/** A non-negative whole number in a query string (no blanks, signs, exponents or fractions). */
export const QueryInt = z
  .string()
  .regex(/^\d{1,15}$/, "must be a whole number")
  .transform(Number);

/** A non-negative decimal number in a query string. */
export const QueryNumber = z
  .string()
  .regex(/^\d{1,9}(\.\d{1,6})?$/, "must be a number of seconds")
  .transform(Number);

export const AgentUpdatesQuery = z.strictObject({
  afterSeq: QueryInt.optional().default(0),
  limit: QueryInt.pipe(z.number().min(1, "must be 1-100").max(100, "must be 1-100"))
    .optional()
    .default(100),
  wait: QueryNumber.optional().default(0),
});
export type AgentUpdatesQuery = z.infer<typeof AgentUpdatesQuery>;

export const AgentUpdatesResponse = z.object({
  events: z.array(AgentEvent),
  nextSeq: z.number().int(),
});
export type AgentUpdatesResponse = z.infer<typeof AgentUpdatesResponse>;

export const AgentCursorResponse = z.object({ seq: z.number().int() });
export type AgentCursorResponse = z.infer<typeof AgentCursorResponse>;
