import type {
  ActionRejection,
  AgentAction,
  AgentPlatformSkill,
  RejectionChoice,
} from "@switchboard/contract";
import { formatNumber, formatSpan, formatWhen } from "./format";

/**
 * An agent's proposal in words a person reads at a glance: what kind of thing it does ("New
 * task"), one summary line ("Task · due Sat 29 Nov, 10:00 · high priority"), and its details as
 * labelled rows — never raw keys, JSON or UTC. A change card names the record it targets as it is
 * now and shows each field's current value beside the proposed one.
 */

type RecordType = "task" | "reminder" | "event" | "note";
type Fields = Record<string, unknown>;

/** The record a change card targets, as it is now (null: it no longer exists). */
export interface CardTarget {
  type: RecordType;
  record: Fields | null;
  archived: boolean;
}

export interface WordRow {
  label: string;
  value: string;
  /** The value now, when the card would change it. */
  before?: string;
}

export interface ProposalWords {
  /** "New task", "Change reminder", "Delete note"; a custom kind as a phrase. */
  kind: string;
  /** One line that says it all. */
  summary: string;
  rows: WordRow[];
}

const nouns: Record<RecordType, string> = {
  task: "Task",
  reminder: "Reminder",
  event: "Event",
  note: "Note",
};

const verbs: Record<string, string> = {
  create: "New",
  update: "Change",
  complete: "Complete",
  delete: "Delete",
};

/** How each payload field is labelled and written out. */
const fieldWords: Record<string, { label: string; write: (value: unknown) => string }> = {
  title: { label: "Title", write: String },
  description: { label: "Description", write: String },
  content: { label: "Text", write: String },
  location: { label: "Where", write: String },
  dueDate: { label: "Due", write: (v) => formatWhen(String(v)) },
  reminderTime: { label: "Remind at", write: (v) => formatWhen(String(v)) },
  startTime: { label: "Starts", write: (v) => formatWhen(String(v)) },
  endTime: { label: "Ends", write: (v) => formatWhen(String(v)) },
  priority: {
    label: "Priority",
    write: (v) => `${String(v).charAt(0).toUpperCase()}${String(v).slice(1)}`,
  },
};
const fieldOrder = Object.keys(fieldWords);

/** One field's value in words; an emptied field (null) reads "none". */
function writeField(name: string, value: unknown): string {
  if (value === null || value === undefined || value === "") return "none";
  return fieldWords[name]?.write(value) ?? String(value);
}

const quoted = (text: string) => `“${text}”`;

/** A record named the way a person would: its title, or the start of a note's text. */
export function recordName(type: RecordType, record: Fields | null | undefined): string {
  const title = typeof record?.title === "string" && record.title ? record.title : null;
  if (title) return quoted(title);
  const content = typeof record?.content === "string" ? record.content : "";
  if (type === "note" && content)
    return quoted(content.length > 40 ? `${content.slice(0, 40)}…` : content);
  return `this ${type}`;
}

/** The facts that place a record: when it is due, starts or rings, and how urgent it is. */
function facts(type: RecordType, fields: Fields): string[] {
  const out: string[] = [];
  if (type === "task" && typeof fields.dueDate === "string")
    out.push(`due ${formatWhen(fields.dueDate)}`);
  if (type === "reminder" && typeof fields.reminderTime === "string")
    out.push(formatWhen(fields.reminderTime));
  if (type === "event" && typeof fields.startTime === "string")
    out.push(
      formatSpan(fields.startTime, typeof fields.endTime === "string" ? fields.endTime : null),
    );
  if (type === "event" && typeof fields.location === "string" && fields.location)
    out.push(`at ${fields.location}`);
  if (typeof fields.priority === "string") out.push(`${fields.priority} priority`);
  if (type === "task" && fields.status === "completed") out.push("done");
  return out;
}

/** Payload fields as rows, in a fixed order; `id` names the record and is never shown. */
function fieldRows(payload: Fields, current?: Fields | null): WordRow[] {
  return Object.keys(payload)
    .filter((name) => name !== "id")
    .sort((a, b) => rank(a) - rank(b))
    .map((name) => ({
      label: fieldWords[name]?.label ?? humanize(name),
      value: writeField(name, payload[name]),
      ...(current && { before: writeField(name, current[name]) }),
    }));
}
const rank = (name: string) => {
  const at = fieldOrder.indexOf(name);
  return at === -1 ? fieldOrder.length : at;
};

/** A platform skill's proposal in words; `target` is the record a change card names. */
export function skillWords(
  skill: AgentPlatformSkill,
  payload: Fields,
  target?: CardTarget | null,
): ProposalWords {
  const [verb, type] = skill.split("_") as [string, RecordType];
  const noun = nouns[type];
  const kind = `${verbs[verb] ?? verb} ${type}`;
  if (verb === "create")
    return {
      kind,
      summary: [noun, ...facts(type, payload)].join(" · "),
      rows: fieldRows(payload),
    };
  const record = target?.record ?? null;
  const name = record ? recordName(type, record) : null;
  const placed = record ? facts(type, record) : [];
  const about = name ? [name, ...placed].join(" · ") : `a ${type} that no longer exists`;
  const archived = target?.archived ? " (archived)" : "";
  const lead = { update: "Changes", complete: "Marks done", delete: "Deletes" }[verb] ?? kind;
  return {
    kind,
    summary: `${noun} · ${lead} ${about}${archived}`,
    rows: verb === "update" ? fieldRows(payload, record) : [],
  };
}

/** "dueDate" → "Due date"; "order_id" → "Order id". */
export function humanize(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_.-]+/g, " ")
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A custom payload value, nested as it is: scalars in words, objects and lists as rows. */
export type ValueTree =
  | { kind: "text"; text: string }
  | { kind: "rows"; rows: { label: string; value: ValueTree }[] };

const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

export function valueTree(value: unknown): ValueTree {
  if (value === null || value === undefined) return { kind: "text", text: "none" };
  if (typeof value === "boolean") return { kind: "text", text: value ? "yes" : "no" };
  if (typeof value === "string")
    return { kind: "text", text: isoDateTime.test(value) ? formatWhen(value) : value };
  if (typeof value === "number") return { kind: "text", text: formatNumber(value) };
  if (Array.isArray(value)) {
    if (value.length === 0) return { kind: "text", text: "none" };
    if (value.every((item) => item === null || typeof item !== "object"))
      return { kind: "text", text: value.map((item) => textOf(valueTree(item))).join(", ") };
    return {
      kind: "rows",
      rows: value.map((item, i) => ({ label: `${i + 1}.`, value: valueTree(item) })),
    };
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Fields);
    if (entries.length === 0) return { kind: "text", text: "none" };
    return {
      kind: "rows",
      rows: entries.map(([key, item]) => ({ label: humanize(key), value: valueTree(item) })),
    };
  }
  return { kind: "text", text: String(value) };
}

function textOf(tree: ValueTree): string {
  return tree.kind === "text"
    ? tree.text
    : tree.rows.map((r) => `${r.label} ${textOf(r.value)}`).join("; ");
}

/** A custom kind ("order.place") as a phrase ("Order place"). */
export function kindWords(action: Pick<AgentAction, "kind">): string {
  return humanize(action.kind);
}

/** What an edit changed, field by field: old → new (fields the edit left alone are not listed). */
export function editChanges(
  skill: AgentPlatformSkill | null,
  proposed: Fields,
  edited: Fields,
): WordRow[] {
  const names = [...new Set([...Object.keys(proposed), ...Object.keys(edited)])].filter(
    (name) => name !== "id" && JSON.stringify(proposed[name]) !== JSON.stringify(edited[name]),
  );
  return names.map((name) =>
    skill
      ? {
          label: fieldWords[name]?.label ?? humanize(name),
          before: writeField(name, proposed[name]),
          value: writeField(name, edited[name]),
        }
      : {
          label: humanize(name),
          before: textOf(valueTree(proposed[name])),
          value: textOf(valueTree(edited[name])),
        },
  );
}

/** The quick answers a person gives to why they rejected a card, as the Reject dialog offers. */
export const rejectionChoiceWords: Record<RejectionChoice, string> = {
  not_now: "Not now",
  wrong_details: "Wrong details",
  never: "Don't suggest this again",
};

/** Why a card was rejected, in one line ("Not now: Friday is full"); null when nobody said. */
export function rejectionWords(rejection: ActionRejection | null | undefined): string | null {
  if (!rejection) return null;
  const choice = rejection.choice && rejectionChoiceWords[rejection.choice];
  const parts = [choice, rejection.reason].filter(Boolean);
  return parts.length > 0 ? parts.join(": ") : null;
}
