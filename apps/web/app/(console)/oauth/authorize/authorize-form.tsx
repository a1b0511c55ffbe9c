"use client";

import { scopeSentence } from "@switchboard/contract";
import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { FormError } from "~/components/form-error";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import ui from "~/components/ui/layout.module.css";
import { useTRPC } from "~/trpc/client";

/** Pick an agent, read what it may do, Allow or Deny; the browser then goes back to the app. */
export function AuthorizeForm({ params }: { params: Record<string, string> }) {
  const trpc = useTRPC();
  const agents = (useQuery(trpc.agents.list.queryOptions()).data ?? []).map((agent) => ({
    id: agent.id,
    name: agent.displayName ?? agent.num,
    paused: agent.paused !== null,
    scopes: agent.requestedScopes.map(scopeSentence),
  }));
  const [picked, setPicked] = useState("");
  const agentId = agents.some((agent) => agent.id === picked) ? picked : (agents[0]?.id ?? "");
  const decide = useMutation(
    trpc.oauth.decide.mutationOptions({
      onSuccess: ({ redirectTo }) => window.location.assign(redirectTo),
    }),
  );
  const chosen = agents.find((agent) => agent.id === agentId);
  const answer = (allow: boolean) =>
    decide.mutate({ params, agentId: allow ? agentId : null, allow });
  return (
    <Card aria-labelledby="oauth-agent-heading">
      <h2 id="oauth-agent-heading">Act as which agent?</h2>
      {agents.length === 0 ? (
        <p data-testid="oauth-no-agent">You have no agent yet: create one below.</p>
      ) : (
        <div className={ui.stack}>
          <label>
            Agent{" "}
            <select
              data-testid="oauth-agent"
              value={agentId}
              onChange={(event) => setPicked(event.target.value)}
            >
              {agents.map((agent) => (
                <option key={agent.id} value={agent.id}>
                  {agent.name}
                  {agent.paused ? " (paused)" : ""}
                </option>
              ))}
            </select>
          </label>
          <p>
            The app will act as this agent through its MCP tools: read its updates, answer, and
            propose actions. It can reach only people who added the agent, and only as far as each
            of them allowed:
          </p>
          <ul data-testid="oauth-scopes">
            {(chosen?.scopes ?? []).map((sentence) => (
              <li key={sentence}>{sentence}</li>
            ))}
          </ul>
          <p className={ui.muted}>
            You can revoke this connection any time in the agent's token list.
          </p>
        </div>
      )}
      <FormError message={decide.error?.message} />
      <div className={ui.row}>
        <Button
          data-testid="oauth-allow"
          disabled={!chosen || decide.isPending}
          onClick={() => answer(true)}
        >
          Allow
        </Button>
        <Button
          variant="secondary"
          data-testid="oauth-deny"
          disabled={decide.isPending}
          onClick={() => answer(false)}
        >
          Deny
        </Button>
      </div>
    </Card>
  );
}
