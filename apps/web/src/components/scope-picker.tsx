import { type AgentScope, agentScopes } from "@switchboard/contract";

/** What each surface covers, as the consent card explains it (spec, AgentScope). */
const surfaces: { surface: string; label: string; covers: string }[] = [
  { surface: "messages", label: "Messages", covers: "read history · send, react and propose" },
  { surface: "emails", label: "Emails", covers: "read what they email it · email them" },
  { surface: "tasks", label: "Tasks", covers: "read · change, with their approval" },
  { surface: "reminders", label: "Reminders", covers: "read · change, with their approval" },
  { surface: "events", label: "Events", covers: "read · change, with their approval" },
  { surface: "notes", label: "Notes", covers: "read · change, with their approval" },
  { surface: "calls", label: "Calls", covers: "call summaries and transcripts" },
];

/**
 * The requested-scope checkboxes, one row per surface in consent-card order (read before
 * write), each box labelled with the scope it requests.
 */
export function ScopePicker({
  legend,
  selected,
  testId,
}: {
  legend: string;
  selected: readonly AgentScope[];
  testId?: string;
}) {
  return (
    <fieldset className="scopes" data-testid={testId}>
      <legend>{legend}</legend>
      {surfaces.map(({ surface, label, covers }) => (
        <div className="scope-row" key={surface}>
          <div>
            <div className="scope-surface">{label}</div>
            <div className="hint">{covers}</div>
          </div>
          {(["read", "write"] as const).map((access) => {
            const scope = `${surface}:${access}` as AgentScope;
            if (!agentScopes.includes(scope)) return <span key={access} />;
            return (
              <label className="check" key={access}>
                <input
                  type="checkbox"
                  name="scope"
                  value={scope}
                  defaultChecked={selected.includes(scope)}
                />
                <span className="mono">{scope}</span>
              </label>
            );
          })}
        </div>
      ))}
    </fieldset>
  );
}

/** Reads the checked scopes back from a submitted form, in consent-card order. */
export function scopesFrom(form: FormData): AgentScope[] {
  const checked = new Set(form.getAll("scope"));
  return agentScopes.filter((scope) => checked.has(scope));
}
