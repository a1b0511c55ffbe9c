/**
 * The contract's plain words: the scope and skill lists, what a skill needs and carries, and the
 * limits a form shows. No zod here, so a browser page that needs only these does not load the
 * schema library: the package is free of side effects (`sideEffects: false`), and a bundler keeps
 * only the modules a page imports from. The schemas build on these lists.
 */

/** Agent scopes, in consent-card order. */
export const agentScopes = [
  "messages:read",
  "messages:write",
  "emails:read",
  "emails:write",
  "tasks:read",
  "tasks:write",
  "reminders:read",
  "reminders:write",
  "events:read",
  "events:write",
  "notes:read",
  "notes:write",
  "calls:read",
] as const;

/** One of `agentScopes` (scopes.ts's `AgentScope`, without the schema this file does without). */
type AgentScope = (typeof agentScopes)[number];

/** Sorts and de-duplicates scopes into consent-card order. */
export function inConsentOrder(scopes: Iterable<AgentScope>): AgentScope[] {
  const wanted = new Set(scopes);
  return agentScopes.filter((scope) => wanted.has(scope));
}

export const devScopes = ["self-chat:write"] as const;

export const platformSkills = [
  "create_task",
  "create_reminder",
  "create_event",
  "create_note",
  "update_task",
  "complete_task",
  "delete_task",
  "update_reminder",
  "complete_reminder",
  "delete_reminder",
  "update_event",
  "delete_event",
  "update_note",
  "delete_note",
] as const;

/** One of `platformSkills` (actions.ts's `AgentPlatformSkill`). */
type AgentPlatformSkill = (typeof platformSkills)[number];

/** Only these may run without a card when the approver enabled auto-execute. */
export const createSkills = [
  "create_task",
  "create_reminder",
  "create_event",
  "create_note",
] as const;

/** Each skill's payload fields, in the order of its schema (`skillPayloads`; a test keeps them equal). */
export const skillFields: Record<AgentPlatformSkill, readonly string[]> = {
  create_task: ["title", "description", "dueDate", "priority"],
  create_reminder: ["title", "reminderTime"],
  create_event: ["title", "description", "startTime", "endTime", "location"],
  create_note: ["title", "content"],
  update_task: ["id", "title", "description", "dueDate", "priority"],
  complete_task: ["id"],
  delete_task: ["id"],
  update_reminder: ["id", "title", "reminderTime"],
  complete_reminder: ["id"],
  delete_reminder: ["id"],
  update_event: ["id", "title", "description", "startTime", "endTime", "location"],
  delete_event: ["id"],
  update_note: ["id", "title", "content"],
  delete_note: ["id"],
};

/** The write scope a skill needs, besides `messages:write`. */
export function skillScope(skill: AgentPlatformSkill): AgentScope {
  return `${skillRecordType(skill)}s:write`;
}

/** The record type a skill works on (`execution.recordType`). */
export function skillRecordType(skill: AgentPlatformSkill): "task" | "reminder" | "event" | "note" {
  return skill.split("_")[1] as "task" | "reminder" | "event" | "note";
}

/** The event types, in the order the reference lists them (`eventRegistry` holds their schemas). */
export const agentEventTypes = [
  "message.received",
  "message.transcript",
  "contact.added",
  "action.approved",
  "action.rejected",
  "action.expired",
  "email.received",
  "task.due",
  "reminder.due",
  "call.ended",
  "webhook.test",
] as const;

/** A proposal's payload, serialized. */
export const MAX_PAYLOAD_BYTES = 16 * 1024;

/** Cards per post. */
export const MAX_POST_TEXTS = 5;
/** Characters per card (the spec's Post limit). */
export const MAX_POST_TEXT_CHARS = 280;
/** Characters of a post's optional caption (the spec leaves it open; ours). */
export const MAX_POST_CAPTION_CHARS = 1000;
/** Characters of a person's comment on a post. */
export const MAX_POST_COMMENT_CHARS = 1000;

/** Length in code points: what a person counts, and what the post limits are in. */
export const charCount = (value: string) => [...value].length;
