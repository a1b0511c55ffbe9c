import { type AgentEventType, agentEventTypes, type WebhookDelivery } from "@switchboard/contract";

type Status = WebhookDelivery["status"];

/** What the delivery log shows: its filters and its page (by event seq), as the URL keeps it. */
export interface LogView {
  status?: Status;
  eventType?: AgentEventType;
  eventId?: string;
  before?: number;
  after?: number;
}

/** The status filter's choices, in the owner's words. */
export const statusChoices: { value: Status; label: string }[] = [
  { value: "succeeded", label: "Delivered" },
  { value: "pending", label: "Queued or retrying" },
  { value: "dead", label: "Failed" },
];

/** The event types a log can hold: every type but the console's test event, which is never in it. */
export const loggedEventTypes: AgentEventType[] = agentEventTypes.filter(
  (type) => type !== "webhook.test",
);

/** The URL query's names for the view's parts. */
const names = {
  status: "status",
  eventType: "type",
  eventId: "event",
  before: "before",
  after: "after",
} as const;

const seq = (value: string | null, min: number) => {
  const n = value !== null && /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN;
  return n >= min ? n : undefined;
};

/**
 * The view a URL query asks for. What does not parse (a status or type that does not exist, a
 * cursor that is not a seq) is left out rather than refused: a hand-edited link still shows a log.
 */
export function logViewFrom(params: URLSearchParams): LogView {
  const status = params.get(names.status);
  const eventType = params.get(names.eventType);
  const eventId = params.get(names.eventId)?.trim().slice(0, 100);
  const before = seq(params.get(names.before), 1);
  const after = before === undefined ? seq(params.get(names.after), 0) : undefined;
  return {
    ...(statusChoices.some((choice) => choice.value === status) && { status: status as Status }),
    ...(loggedEventTypes.includes(eventType as AgentEventType) && {
      eventType: eventType as AgentEventType,
    }),
    ...(eventId && { eventId }),
    ...(before !== undefined && { before }),
    ...(after !== undefined && { after }),
  };
}

/** The URL query changes that show `view` (every part named, so what it leaves out is dropped). */
export function logViewQuery(view: LogView): Record<string, string | null> {
  return Object.fromEntries(
    Object.entries(names).map(([part, name]) => {
      const value = view[part as keyof LogView];
      return [name, value === undefined ? null : String(value)];
    }),
  );
}

/** Whether the view narrows the log (its page aside). */
export const isFiltered = (view: LogView) =>
  view.status !== undefined || view.eventType !== undefined || view.eventId !== undefined;
