"use client";

import type { RequestPrivacy } from "@switchboard/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { shownError } from "~/components/errors";
import { FieldError, invalidProps } from "~/components/field-error";
import { onFormSubmit } from "~/components/form";
import { FormError } from "~/components/form-error";
import { formatRelative, formatWhen } from "~/components/format";
import { PrivacySelect } from "~/components/privacy-select";
import { ScopePicker, scopesFrom } from "~/components/scope-picker";
import { Skeleton } from "~/components/skeleton";
import { Sparkline } from "~/components/sparkline";
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
        <Link
          href="/agents/status"
          className="button-link secondary nowrap"
          data-testid="service-status-link"
        >
          Service status
        </Link>
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
      {agents.isPending && <Skeleton label="your agents" />}
      {agents.error && <FormError message={shownError(agents.error)?.message} />}
      {agents.data?.length === 0 && (
        <p className="empty" data-testid="agent-list-empty">
          No agents yet. Create your first one below.
        </p>
      )}
      {agents.data && agents.data.length > 0 && (
        <table data-testid="agent-list" className="stack-on-phone">
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Contacts</th>
              <th scope="col">Last activity</th>
              <th scope="col">Last 7 days</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {agents.data.map((agent) => {
              const name = agent.displayName ?? agent.num;
              return (
                <tr key={agent.id} data-testid="agent-row">
                  <td className="cell-main">
                    <Link
                      href={`/agents/${agent.id}`}
                      className="strong-link truncate"
                      title={name}
                    >
                      {name}
                    </Link>
                    <span className="mono muted nowrap">{agent.num}</span>
                  </td>
                  <td data-label="Contacts" className="nowrap" data-testid="agent-contacts">
                    {agent.contacts.toLocaleString()}
                  </td>
                  <td
                    data-label="Last activity"
                    className="nowrap"
                    data-testid="agent-last-activity"
                  >
                    {agent.lastActivityAt ? (
                      <time
                        dateTime={agent.lastActivityAt}
                        title={formatWhen(agent.lastActivityAt)}
                      >
                        {formatRelative(agent.lastActivityAt)}
                      </time>
                    ) : (
                      <span className="muted">never</span>
                    )}
                  </td>
                  <td data-label="Last 7 days">
                    <Sparkline
                      days={agent.last7Days}
                      label={`Messages of ${name} on each of the last 7 days`}
                      testId="agent-sparkline"
                    />
                  </td>
                  <td data-label="State">
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
              );
            })}
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
