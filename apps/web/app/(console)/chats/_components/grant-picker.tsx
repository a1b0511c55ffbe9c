import { type AgentScope, inConsentOrder, scopeSentence } from "@switchboard/contract";

/**
 * One checkbox per scope the agent requests, in consent-card order, each with the sentence that
 * says what it gives the agent; checked when granted. An agent can never be granted a scope it
 * did not request, so no other scope is offered.
 */
export function GrantPicker({
  requested,
  granted,
}: {
  requested: readonly AgentScope[];
  granted: readonly AgentScope[];
}) {
  if (requested.length === 0)
    return <p className="empty">This agent asks for nothing: you can only talk to it.</p>;
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
          <span>{scopeSentence(scope)}</span>
        </label>
      ))}
    </fieldset>
  );
}
