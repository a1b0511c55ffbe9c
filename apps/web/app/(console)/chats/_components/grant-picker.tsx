import { type AgentScope, inConsentOrder, scopeSentence } from "@switchboard/contract";
import { EmptyState } from "~/components/ui/empty-state";
import ui from "~/components/ui/layout.module.css";
import chat from "./chat.module.css";

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
    return <EmptyState>This agent asks for nothing: you can only talk to it.</EmptyState>;
  return (
    <fieldset className={chat.grant} data-testid="grant-picker">
      <legend>It asks to</legend>
      {inConsentOrder(requested).map((scope) => (
        <label className={`${ui.check} ${chat.grantRow}`} key={scope}>
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
