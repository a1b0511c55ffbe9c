"use client";

import type { RequestPrivacy } from "@switchboard/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { shownError } from "~/components/errors";
import { FieldError, invalidProps } from "~/components/field-error";
import { onFormSubmit } from "~/components/form";
import { FormError } from "~/components/form-error";
import { PrivacySelect } from "~/components/privacy-select";
import { ScopePicker, scopesFrom } from "~/components/scope-picker";
import { useTRPC } from "~/trpc/client";

export default function AgentsPage() {
  return (
    <>
      <title>Agents · Switchboard</title>
      <div className="page-head">
        <div>
          <h1>Your agents</h1>
          <p className="muted">
            Each agent has its own 800 number. People who add it choose what it may see and do.
          </p>
        </div>
      </div>
      <AgentList />
      <CreateAgent />
    </>
  );
}

function AgentList() {
  const trpc = useTRPC();
  const agents = useQuery(trpc.agents.list.queryOptions());
  return (
    <section className="card" aria-labelledby="agents-heading">
      <h2 id="agents-heading">Agents</h2>
      {agents.isPending && <p className="muted">Loading…</p>}
      {agents.error && <p className="form-error">{agents.error.message}</p>}
      {agents.data?.length === 0 && (
        <p className="empty" data-testid="agent-list-empty">
          No agents yet. Create your first one below.
        </p>
      )}
      {agents.data && agents.data.length > 0 && (
        <table data-testid="agent-list">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Number</th>
              <th scope="col">Requested scopes</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {agents.data.map((agent) => (
              <tr key={agent.id} data-testid="agent-row">
                <td>
                  <Link href={`/agents/${agent.id}`} className="strong-link">
                    {agent.displayName ?? agent.num}
                  </Link>
                </td>
                <td className="mono">{agent.num}</td>
                <td className="muted">{agent.requestedScopes.length || "none"}</td>
                <td>
                  {agent.paused ? (
                    <span
                      className="badge warn"
                      title={
                        agent.paused.reason === "owner" ? "Paused by you" : "Paused at a ceiling"
                      }
                    >
                      paused
                    </span>
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
  );
}

const createFields = ["displayName", "requestedScopes", "requestPrivacy"] as const;

function CreateAgent() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(
    trpc.agents.create.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.agents.list.queryFilter()),
    }),
  );
  const error = shownError(create.error, createFields);

  return (
    <section className="card" aria-labelledby="create-heading">
      <h2 id="create-heading">Create an agent</h2>
      <form
        className="stack"
        onSubmit={onFormSubmit((form, element) =>
          create.mutate(
            {
              displayName: String(form.get("displayName") ?? ""),
              requestedScopes: scopesFrom(form),
              requestPrivacy: String(form.get("requestPrivacy")) as RequestPrivacy,
            },
            { onSuccess: () => element.reset() },
          ),
        )}
      >
        <FormError message={error?.message} />
        <label>
          Name
          <input
            name="displayName"
            required
            maxLength={50}
            autoComplete="off"
            data-testid="agent-name"
            {...invalidProps("agent-name-error", error?.fields.displayName)}
          />
          <FieldError id="agent-name-error" message={error?.fields.displayName} />
        </label>
        <ScopePicker
          legend="Scopes it asks for on the consent card"
          selected={["messages:read", "messages:write"]}
          testId="agent-scopes"
        />
        <FieldError id="agent-scopes-error" message={error?.fields.requestedScopes} />
        <PrivacySelect defaultValue="everyone" />
        <div className="row">
          <button type="submit" disabled={create.isPending} data-testid="agent-create">
            {create.isPending ? "Creating…" : "Create agent"}
          </button>
          {create.data && (
            <p className="success" role="status" data-testid="agent-created">
              Created <Link href={`/agents/${create.data.id}`}>{create.data.displayName}</Link> with
              number <span className="mono">{create.data.num}</span>.
            </p>
          )}
        </div>
      </form>
    </section>
  );
}
