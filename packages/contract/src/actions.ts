import { z } from "zod";
import { DateTime, Num, oneLine } from "./common";
import { StorableText } from "./unstorable-text";
import { MAX_PAYLOAD_BYTES, platformSkills } from "./vocabulary";

export const AgentActionState = z.enum(["pending", "approved", "rejected", "expired"]);
export type AgentActionState = z.infer<typeof AgentActionState>;

export const AgentPlatformSkill = z.enum(platformSkills);
export type AgentPlatformSkill = z.infer<typeof AgentPlatformSkill>;

const Title = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(200, "must be at most 200 characters");
const Text = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const Id = z.string().min(1, "must not be empty");
const Priority = z.enum(["low", "normal", "high"]);
/** Dates in skill payloads are ISO 8601 with an offset, e.g. 2026-05-01T09:00:00+02:00. */
const When = z.iso.datetime({ offset: true, error: "must be an ISO 8601 date-time with offset" });

/** An update names its record and changes at least one field. */
const atLeastOneChange = <T extends z.ZodRawShape>(shape: T) =>
  z
    .strictObject({ id: Id, ...shape })
    .refine(
      (payload) =>
        Object.keys(payload).some(
          (key) => key !== "id" && payload[key as keyof typeof payload] !== undefined,
        ),
      { message: "give at least one field to change besides id" },
    );

/** Each skill's payload contract; unknown keys are refused. */
export const skillPayloads = {
  create_task: z.strictObject({
    title: Title,
    description: Text(2000).optional(),
    dueDate: When.optional(),
    priority: Priority.optional(),
  }),
  create_reminder: z.strictObject({ title: Title, reminderTime: When }),
  create_event: z.strictObject({
    title: Title,
    description: Text(2000).optional(),
    startTime: When,
    endTime: When.optional(),
    location: Text(500).optional(),
  }),
  create_note: z.strictObject({
    title: Title.optional(),
    content: Text(10_000).min(1, "must not be empty"),
  }),
  // On update_task, null clears an optional field.
  update_task: atLeastOneChange({
    title: Title.optional(),
    description: Text(2000).nullable().optional(),
    dueDate: When.nullable().optional(),
    priority: Priority.nullable().optional(),
  }),
  complete_task: z.strictObject({ id: Id }),
  delete_task: z.strictObject({ id: Id }),
  update_reminder: atLeastOneChange({ title: Title.optional(), reminderTime: When.optional() }),
  complete_reminder: z.strictObject({ id: Id }),
  delete_reminder: z.strictObject({ id: Id }),
  update_event: atLeastOneChange({
    title: Title.optional(),
    description: Text(2000).optional(),
    startTime: When.optional(),
    endTime: When.optional(),
    location: Text(500).optional(),
  }),
  delete_event: z.strictObject({ id: Id }),
  update_note: atLeastOneChange({
    title: Title.optional(),
    content: Text(10_000).min(1).optional(),
  }),
  delete_note: z.strictObject({ id: Id }),
} satisfies Record<AgentPlatformSkill, z.ZodType>;
export type SkillPayload<S extends AgentPlatformSkill> = z.infer<(typeof skillPayloads)[S]>;

export const AgentActionExecution = z.object({
  status: z.enum(["succeeded", "failed"]),
  recordType: z.string().optional(),
  recordId: z.string().optional(),
  error: z.string().optional(),
  executedAt: DateTime,
  auto: z.boolean(),
});
export type AgentActionExecution = z.infer<typeof AgentActionExecution>;

/** A person's quick answer to why they rejected a card. */
export const RejectionChoice = z.enum(["not_now", "wrong_details", "never"]);
export type RejectionChoice = z.infer<typeof RejectionChoice>;

/** The longest reason a person may give with a rejection. */
export const MAX_REJECTION_REASON = 500;

/** Why a person rejected a card, as the agent sees it; null fields when they did not say. */
export const ActionRejection = z.object({
  reason: z.string().nullable(),
  choice: RejectionChoice.nullable(),
});
export type ActionRejection = z.infer<typeof ActionRejection>;

/**
 * The optional why a person gives with Reject (console, CLI): a quick choice and a short text.
 * Blank text counts as none.
 */
export const RejectionInput = z.strictObject({
  reason: StorableText.trim()
    .max(MAX_REJECTION_REASON, `must be at most ${MAX_REJECTION_REASON} characters`)
    .optional(),
  choice: RejectionChoice.optional(),
});
export type RejectionInput = z.input<typeof RejectionInput>;

export const AgentAction = z.object({
  id: z.string(),
  conversationId: z.string(),
  userId: z.string(),
  kind: z.string(),
  title: z.string(),
  description: z.string().nullable(),
  payload: z.record(z.string(), z.unknown()),
  editedPayload: z.record(z.string(), z.unknown()).nullable(),
  state: AgentActionState,
  expiresAt: DateTime,
  createdAt: DateTime,
  resolvedAt: DateTime.nullable(),
  skill: AgentPlatformSkill.nullable(),
  execution: AgentActionExecution.nullable(),
  /** Why the person rejected it: only on a rejected action (never on an expired one). */
  rejection: ActionRejection.optional(),
});
export type AgentAction = z.infer<typeof AgentAction>;

export const AgentProposeActionRequest = z
  .strictObject({
    to: Num.optional(),
    conversationId: z.string().min(1).optional(),
    kind: z
      .string()
      .regex(
        /^[a-z][a-z0-9_.-]{0,63}$/,
        "must start with a lowercase letter, then up to 63 lowercase letters, digits, _ . -",
      )
      .optional(),
    title: z
      .string()
      .min(1, "must be 1-200 characters")
      .max(200, "must be 1-200 characters")
      .refine(oneLine, "must be one line"),
    description: z.string().max(2000, "must be at most 2000 characters").optional(),
    payload: z
      .record(z.string(), z.unknown())
      .refine(
        (payload) => Buffer.byteLength(JSON.stringify(payload)) <= MAX_PAYLOAD_BYTES,
        `must be at most ${MAX_PAYLOAD_BYTES} bytes serialized`,
      )
      .optional(),
    expiresAt: DateTime.optional(),
    skill: AgentPlatformSkill.optional(),
  })
  .superRefine((request, ctx) => {
    if ((request.to === undefined) === (request.conversationId === undefined))
      ctx.addIssue({
        code: "custom",
        path: ["to"],
        message: "give exactly one of to or conversationId",
      });
    if (request.kind === undefined && request.skill === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["kind"],
        message: "kind is required unless skill is given",
      });
  });
export type AgentProposeActionRequest = z.infer<typeof AgentProposeActionRequest>;

export const AgentListActionsQuery = z.strictObject({
  conversationId: z.string().min(1).optional(),
  state: AgentActionState.optional(),
  limit: z
    .string()
    .regex(/^\d{1,3}$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().min(1, "must be 1-100").max(100, "must be 1-100"))
    .optional()
    .default(50),
});
export type AgentListActionsQuery = z.infer<typeof AgentListActionsQuery>;
