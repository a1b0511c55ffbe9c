import { type AgentScope, inConsentOrder } from "@switchboard/contract";

/** What each scope lets an agent do, as a person reads it on a consent card. */
export const scopeMeaning: Record<AgentScope, string> = {
  "messages:read": "Read the messages you send it",
  "messages:write": "Write to you, react and propose actions for your approval",
  "emails:read": "Read what you email it",
  "emails:write": "Email you",
  "tasks:read": "See your tasks",
  "tasks:write": "Propose changes to your tasks",
  "reminders:read": "See your reminders",
  "reminders:write": "Propose changes to your reminders",
  "events:read": "See your calendar events",
  "events:write": "Propose changes to your calendar events",
  "notes:read": "See your notes",
  "notes:write": "Propose changes to your notes",
  "calls:read": "Receive summaries and transcripts of your calls with it",
};

/**
 * One checkbox per scope the agent requests, in consent-card order, checked when granted. An
 * agent can never be granted a scope it did not request, so no other scope is offered.
 */
export function GrantPicker({
  requested,
  granted,
}: {
  requested: readonly AgentScope[];
  granted: readonly AgentScope[];
}) {
  if (requested.length === 0)
    return <p className="empty">This agent requests no scopes: it can only be talked to.</p>;
  return (
    <fieldset className="grant" data-testid="grant-picker">
      <legend>It asks to</legend>
      {inConsentOrder(requested).map((scope) => (
        <label className="check grant-row" key={scope}>
          <input
            type="checkbox"
            name="scope"
            value={scope}
            defaultChecked={granted.includes(scope)}
            data-testid={`grant-${scope}`}
          />
          <span>
            {scopeMeaning[scope]} <span className="mono hint">{scope}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}
