import { DecisionCursor, RecordType } from "@switchboard/contract";
import {
  archiveOwnRecord,
  completeOwnRecord,
  createRecord,
  deleteOwnRecord,
  findRecordCards,
  listOwnRecords,
  listPersonDecisions,
  MAX_DECISION_PAGE,
  updateOwnRecord,
} from "@switchboard/core";
import { z } from "zod";
import { protectedProcedure, router } from "../init";

/**
 * The signed-in person's own tasks, reminders, events and notes. Every change goes through
 * core's `applySkill`, the same path (and validation) as an approved card.
 */
const record = z.object({ type: RecordType, id: z.string().min(1) });

export const recordsRouter = router({
  list: protectedProcedure
    .input(z.object({ type: RecordType }))
    .query(({ ctx, input }) => listOwnRecords(ctx.deps, ctx.user.id, input.type)),

  /** The cards that created these records, so each links to its card in the chat. */
  cards: protectedProcedure
    .input(z.object({ recordIds: z.array(z.string().min(1).max(64)).max(MAX_DECISION_PAGE) }))
    .query(({ ctx, input }) => findRecordCards(ctx.deps, ctx.user.id, input.recordIds)),

  /** The person's own decisions on cards, a page at a time (the JSON export reads them all). */
  decisions: protectedProcedure
    .input(
      z.object({
        before: DecisionCursor.optional(),
        limit: z.number().int().min(1).max(MAX_DECISION_PAGE).default(MAX_DECISION_PAGE),
      }),
    )
    .query(({ ctx, input }) => listPersonDecisions(ctx.deps, ctx.user.id, input)),

  create: protectedProcedure
    .input(z.object({ type: RecordType, data: z.unknown() }))
    .mutation(({ ctx, input }) => createRecord(ctx.deps, ctx.user.id, input.type, input.data)),

  update: protectedProcedure
    .input(record.extend({ changes: z.record(z.string(), z.unknown()) }))
    .mutation(({ ctx, input }) =>
      updateOwnRecord(ctx.deps, ctx.user.id, input.type, input.id, input.changes),
    ),

  complete: protectedProcedure
    .input(record.extend({ type: z.enum(["task", "reminder"]) }))
    .mutation(({ ctx, input }) => completeOwnRecord(ctx.deps, ctx.user.id, input.type, input.id)),

  archive: protectedProcedure
    .input(record)
    .mutation(({ ctx, input }) => archiveOwnRecord(ctx.deps, ctx.user.id, input.type, input.id)),

  delete: protectedProcedure
    .input(record)
    .mutation(({ ctx, input }) => deleteOwnRecord(ctx.deps, ctx.user.id, input.type, input.id)),
});
