"use client";

import type { AgentWebhook } from "@switchboard/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { use, useState } from "react";
import { shownError } from "~/components/errors";
import { onFormSubmit } from "~/components/form";
import { FormError } from "~/components/form-error";
import { formatTime } from "~/components/format";
import { SecretOnce } from "~/components/secret-once";
import { useTRPC } from "~/trpc/client";

const when = (iso: string | null) => (iso ? formatTime(iso) : "never");

/**
 * An agent's webhook for its owner: where events go, whether deliveries work, each event's
 * latest attempt, and the owner's actions (set the URL, rotate the secret, resume and retry).
 */
export default function WebhookPage({ params }: { params: Promise<{ agentId: string }> }) {
  const { agentId } = use(params);
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  // Deliveries happen in the worker on their own schedule; keep the page current.
  const data = useQuery(trpc.webhooks.get.queryOptions({ agentId }, { refetchInterval: 3000 }));
  const [secret, setSecret] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
  const withSecret = {
    onSuccess: (answer: { secret: string }) => {
      setSecret(answer.secret);
      return refresh();
    },
  };
  const set = useMutation(trpc.webhooks.set.mutationOptions(withSecret));
  const rotate = useMutation(trpc.webhooks.rotate.mutationOptions(withSecret));
  const resume = useMutation(trpc.webhooks.resume.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.webhooks.remove.mutationOptions({ onSuccess: refresh }));
  const setError = shownError(set.error, ["url"]);
  const error = shownError(rotate.error ?? resume.error ?? remove.error);
  const webhook = data.data?.webhook ?? null;
  const deliveries = data.data?.deliveries ?? [];
  const dead = deliveries.filter((d) => d.status === "dead").length;

  return (
    <>
      <title>Webhook · Switchboard</title>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link href="/agents">Agents</Link>
        <span aria-hidden="true">/</span>
        <Link href={`/agents/${agentId}`}>Agent</Link>
        <span aria-hidden="true">/</span>
        <span aria-current="page">Webhook</span>
      </nav>
      <div className="page-head">
        <div>
          <h1>Webhook</h1>
          <p className="muted">
            Every event of this agent is POSTed, signed, to this URL. Long-poll and the stream keep
            working whatever its state.
          </p>
        </div>
      </div>
      {data.error && <FormError message={data.error.message} />}
      {secret && (
        <SecretOnce
          label="Signing secret"
          value={secret}
          testId="webhook-secret"
          note="Copy it now: it verifies X-Svc-Signature. You won't see it again here."
        />
      )}
      <section className="card" aria-labelledby="webhook-heading">
        <div className="card-head">
          <h2 id="webhook-heading">Endpoint</h2>
          {webhook && (
            <span className={`badge ${stateBadge[webhook.state]}`} data-testid="webhook-state">
              {webhook.state}
            </span>
          )}
        </div>
        {webhook ? (
          <WebhookFacts webhook={webhook} dead={dead} />
        ) : (
          <p className="empty" data-testid="webhook-none">
            No webhook yet: events wait for long-poll or the stream.
          </p>
        )}
        <form
          className="row align-end"
          onSubmit={onFormSubmit((form) =>
            set.mutate({ agentId, url: String(form.get("url") ?? "") }),
          )}
        >
          <label htmlFor="webhook-url">
            {webhook ? "Change the URL" : "URL"}
            <input
              id="webhook-url"
              name="url"
              className="narrow mono"
              placeholder="https://example.com/hooks/switchboard"
              defaultValue={webhook?.url ?? ""}
              key={webhook?.url}
              data-testid="webhook-url-input"
            />
          </label>
          <button type="submit" disabled={set.isPending} data-testid="webhook-save">
            {webhook ? "Save (new secret)" : "Set webhook"}
          </button>
        </form>
        <FormError message={setError?.fields.url ?? setError?.message} testId="webhook-url-error" />
        {webhook && (
          <div className="row">
            <button
              type="button"
              className="secondary"
              disabled={rotate.isPending}
              onClick={() => rotate.mutate({ agentId })}
              data-testid="webhook-rotate"
            >
              Rotate secret
            </button>
            {webhook.state === "disabled" && (
              <button
                type="button"
                disabled={resume.isPending}
                onClick={() => resume.mutate({ agentId })}
                data-testid="webhook-resume"
              >
                Resume and retry{dead ? ` (${dead} dead)` : ""}
              </button>
            )}
            <button
              type="button"
              className="danger"
              disabled={remove.isPending}
              onClick={() => {
                if (window.confirm("Remove the webhook? Events stay available by long-poll."))
                  remove.mutate({ agentId });
              }}
              data-testid="webhook-delete"
            >
              Remove
            </button>
          </div>
        )}
        <FormError message={error?.message} />
      </section>
      <section className="card" aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Deliveries</h2>
        {deliveries.length === 0 ? (
          <p className="empty">No deliveries yet.</p>
        ) : (
          <table data-testid="webhook-deliveries">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Answer</th>
                <th scope="col">Latency</th>
                <th scope="col">Next retry</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <tr key={d.eventId} data-testid="webhook-delivery">
                  <td>
                    <span className="mono">{d.eventType}</span>{" "}
                    <span className="hint">#{d.eventSeq}</span>
                  </td>
                  <td>
                    <span className={`badge ${deliveryBadge[d.status]}`}>{d.status}</span>
                  </td>
                  <td>{d.attempts}</td>
                  <td className="muted">{d.httpStatus ?? d.error ?? "—"}</td>
                  <td>{d.latencyMs === null ? "—" : `${d.latencyMs} ms`}</td>
                  <td className="muted">{d.nextAttemptAt ? formatTime(d.nextAttemptAt) : "—"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}

const stateBadge: Record<AgentWebhook["state"], string> = {
  active: "ok",
  paused: "warn",
  disabled: "warn",
};
const deliveryBadge = { pending: "", succeeded: "ok", failed: "warn", dead: "off" } as const;

function WebhookFacts({ webhook, dead }: { webhook: AgentWebhook; dead: number }) {
  return (
    <dl className="payload" data-testid="webhook-facts">
      <div>
        <dt>URL</dt>
        <dd className="mono" data-testid="webhook-url">
          {webhook.url}
        </dd>
      </div>
      <div>
        <dt>Failures in a row</dt>
        <dd data-testid="webhook-failures">{webhook.consecutiveFailures}</dd>
      </div>
      <div>
        <dt>Last success</dt>
        <dd>{when(webhook.lastSuccessAt)}</dd>
      </div>
      <div>
        <dt>Last failure</dt>
        <dd>
          {when(webhook.lastFailureAt)}
          {webhook.lastError && <span className="hint"> — {webhook.lastError}</span>}
        </dd>
      </div>
      {webhook.rotationGraceUntil && (
        <div>
          <dt>Old secret valid until</dt>
          <dd>{formatTime(webhook.rotationGraceUntil)}</dd>
        </div>
      )}
      {dead > 0 && (
        <div>
          <dt>Dead events</dt>
          <dd data-testid="webhook-dead">{dead}</dd>
        </div>
      )}
    </dl>
  );
}
