"use client";

import { type AgentScope, agentScopes, type RequestPrivacy } from "@switchboard/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { shownError } from "~/components/errors";
import { onFormSubmit } from "~/components/form";
import { useTRPC } from "~/trpc/client";

export default function AgentsPage() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const agents = useQuery(trpc.agents.list.queryOptions());
  const create = useMutation(
    trpc.agents.create.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.agents.list.queryFilter()),
    }),
  );
  const error = shownError(create.error);

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Your agents</h1>
          <p className="muted">
            Agents you own. Each has an 800 number and talks to people who add it.
          </p>
        </div>
      </div>

      <section className="card">
        {agents.isLoading && <p className="muted">Loading…</p>}
        {agents.data?.length === 0 && (
          <p className="muted">No agents yet — create your first one below.</p>
        )}
        {agents.data && agents.data.length > 0 && (
          <table data-testid="agent-list">
            <thead>
              <tr>
                <th>Name</th>
                <th>Number</th>
                <th>State</th>
              </tr>
            </thead>
            <tbody>
              {agents.data.map((agent) => (
                <tr key={agent.id}>
                  <td>
                    <Link href={`/agents/${agent.id}`}>{agent.displayName}</Link>
                  </td>
                  <td className="mono">{agent.num}</td>
                  <td>
                    {agent.paused ? (
                      <span className="badge warn">paused</span>
                    ) : (
                      <span className="badge ok">active</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      <section className="card">
        <h2>Create an agent</h2>
        <form
          className="stack"
          onSubmit={onFormSubmit((form) =>
            create.mutate({
              displayName: String(form.get("displayName")),
              requestedScopes: form.getAll("scope") as AgentScope[],
              requestPrivacy: String(form.get("requestPrivacy")) as RequestPrivacy,
            }),
          )}
        >
          {error && <p className="form-error">{error.message}</p>}
          <label>
            Name
            <input name="displayName" required maxLength={50} data-testid="agent-name" />
            {error?.fields.displayName && (
              <span className="field-error">{error.fields.displayName}</span>
            )}
          </label>
          <fieldset className="stack" style={{ border: 0, padding: 0, margin: 0 }}>
            <legend className="hint">Scopes to request on the consent card</legend>
            <div className="checks">
              {agentScopes.map((scope) => (
                <label key={scope}>
                  <input
                    type="checkbox"
                    name="scope"
                    value={scope}
                    defaultChecked={scope.startsWith("messages:")}
                  />
                  <span className="mono">{scope}</span>
                </label>
              ))}
            </div>
          </fieldset>
          <label>
            Who may add it
            <select name="requestPrivacy" defaultValue="everyone">
              <option value="everyone">Everyone</option>
              <option value="contacts_of_contacts">Contacts of contacts</option>
              <option value="nobody">Nobody</option>
            </select>
          </label>
          <div>
            <button type="submit" disabled={create.isPending} data-testid="agent-create">
              {create.isPending ? "Creating…" : "Create agent"}
            </button>
          </div>
          {create.data && (
            <p role="status" data-testid="agent-created">
              Created <Link href={`/agents/${create.data.id}`}>{create.data.displayName}</Link> with
              number <span className="mono">{create.data.num}</span>.
            </p>
          )}
        </form>
      </section>
    </>
  );
}
