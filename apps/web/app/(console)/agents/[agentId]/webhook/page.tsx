"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { Fragment, use, useState } from "react";
import { CodeBlock } from "~/components/code-block";
import { shownError } from "~/components/errors";
import { onFormSubmit } from "~/components/form";
import { FormError } from "~/components/form-error";
import { formatRelative, formatWhen } from "~/components/format";
import { SecretOnce } from "~/components/secret-once";
import { Skeleton } from "~/components/skeleton";
import { useTRPC } from "~/trpc/client";
import type { RouterOutputs } from "~/trpc/router";

type WebhookData = RouterOutputs["webhooks"]["get"];
type Webhook = NonNullable<WebhookData["webhook"]>;
type Delivery = WebhookData["deliveries"][number];
type LogFilter = { eventId?: string; status?: Delivery["status"] };

/**
 * An agent's webhook for its owner: where events go, whether deliveries work (in words), each
 * event's latest attempt with its details (what was sent, what came back, when), and the owner's
 * actions: set the URL, send a test event, rotate the secret, resume, retry one event now.
 */
export default function WebhookPage({ params }: { params: Promise<{ agentId: string }> }) {
  const { agentId } = use(params);
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [filter, setFilter] = useState<LogFilter>({});
  // Deliveries happen in the worker on their own schedule; each settled attempt wakes this page
  // (`webhook:<agentId>`), so it re-reads then and never polls.
  const data = useQuery(trpc.webhooks.get.queryOptions({ agentId, ...filter }));
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
  const test = useMutation(trpc.webhooks.sendTest.mutationOptions({ onSuccess: refresh }));
  const setError = shownError(set.error, ["url"]);
  const error = shownError(rotate.error ?? resume.error ?? remove.error ?? test.error);
  const webhook = data.data?.webhook ?? null;
  const deliveries = data.data?.deliveries ?? [];
  const waiting = data.data?.waiting ?? { waiting: 0, held: 0 };
  const dead = waiting.waiting;
  const agentName = data.data?.agent.displayName ?? data.data?.agent.num ?? "Agent";

  return (
    <>
      <title>{`Webhook · ${agentName} · Switchboard`}</title>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link href="/agents">Agents</Link>
        <span aria-hidden="true">/</span>
        <Link href={`/agents/${agentId}`} className="truncate" data-testid="breadcrumb-agent">
          {agentName}
        </Link>
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
      {data.isPending && <Skeleton lines={4} label="the webhook" />}
      <FormError message={shownError(data.error)?.message} />
      {secret && (
        <SecretOnce
          label="Signing secret"
          value={secret}
          testId="webhook-secret"
          note="Copy it now: it verifies X-Svc-Signature. You won't see it again here."
        />
      )}
      <section className="card stack" aria-labelledby="webhook-heading">
        <div className="card-head">
          <h2 id="webhook-heading">Endpoint</h2>
          {webhook && <HealthBadge webhook={webhook} />}
        </div>
        {webhook ? (
          <WebhookFacts webhook={webhook} dead={dead} />
        ) : (
          data.data && (
            <p className="empty" data-testid="webhook-none">
              No webhook yet: events wait for long-poll or the stream.
            </p>
          )
        )}
        {webhook && webhook.state !== "active" && waiting.waiting > 0 && (
          <p className="hint" data-testid="webhook-waiting">
            {waiting.waiting === 1 ? "1 event waiting" : `${waiting.waiting} events waiting`}
            {waiting.held > 0 ? ` (${waiting.held} committed while it was off)` : ""}. Resume and
            retry sends them in order. Events older than the event log's retention are no longer
            sent.
          </p>
        )}
        <form
          className="url-form"
          onSubmit={onFormSubmit((form) =>
            set.mutate({ agentId, url: String(form.get("url") ?? "") }),
          )}
        >
          <label htmlFor="webhook-url">{webhook ? "Change the URL" : "URL"}</label>
          <div className="url-form-row">
            <input
              id="webhook-url"
              name="url"
              className="mono"
              inputMode="url"
              autoComplete="off"
              placeholder="https://example.com/hooks/switchboard"
              defaultValue={webhook?.url ?? ""}
              key={webhook?.url}
              data-testid="webhook-url-input"
              {...(setError && {
                "aria-invalid": true,
                "aria-describedby": "webhook-url-error",
              })}
            />
            <button type="submit" disabled={set.isPending} data-testid="webhook-save">
              {set.isPending ? "Saving…" : webhook ? "Save (new secret)" : "Set webhook"}
            </button>
          </div>
          <p className="hint">https only, on a public host. Saving issues a new signing secret.</p>
        </form>
        {setError && (
          <p
            className="form-error"
            role="alert"
            id="webhook-url-error"
            data-testid="webhook-url-error"
          >
            {setError.fields.url ? `The URL ${setError.fields.url}.` : setError.message}
          </p>
        )}
        {webhook && (
          <div className="row">
            <button
              type="button"
              disabled={test.isPending || webhook.state !== "active"}
              onClick={() => test.mutate({ agentId })}
              data-testid="webhook-test"
            >
              {test.isPending ? "Sending…" : "Send test event"}
            </button>
            {webhook.state === "disabled" && (
              <button
                type="button"
                disabled={resume.isPending}
                onClick={() => resume.mutate({ agentId })}
                data-testid="webhook-resume"
              >
                Resume and retry{dead ? ` (${dead} failed)` : ""}
              </button>
            )}
            <button
              type="button"
              className="secondary"
              disabled={rotate.isPending}
              onClick={() => rotate.mutate({ agentId })}
              data-testid="webhook-rotate"
            >
              Rotate secret
            </button>
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
        {test.data && <TestResult result={test.data} />}
      </section>
      <section className="card" aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Deliveries</h2>
        <p className="muted">The newest 50 events and their latest attempt.</p>
        <DeliveryFilter filter={filter} onChange={setFilter} />
        {data.data && deliveries.length === 0 ? (
          <p className="empty" data-testid="deliveries-none">
            {filter.eventId || filter.status ? "No deliveries match." : "No deliveries yet."}
          </p>
        ) : (
          <Deliveries
            agentId={agentId}
            deliveries={deliveries}
            canRetry={webhook?.state === "active"}
          />
        )}
      </section>
    </>
  );
}

/** The webhook's health in a word, coloured by how much it needs the owner. */
function HealthBadge({ webhook }: { webhook: Webhook }) {
  const [label, tone] =
    webhook.state === "disabled"
      ? ["turned off", "bad"]
      : webhook.state === "paused"
        ? ["paused", "warn"]
        : webhook.consecutiveFailures > 0
          ? ["failing", "bad"]
          : webhook.lastSuccessAt
            ? ["healthy", "ok"]
            : ["waiting for events", ""];
  return (
    <span className={`badge ${tone}`} data-testid="webhook-state" data-state={webhook.state}>
      {label}
    </span>
  );
}

/** A delivery's status in a word: delivered, queued, retrying, failed (given up). */
function deliveryStatus(delivery: Delivery): { label: string; tone: string } {
  if (delivery.status === "succeeded") return { label: "delivered", tone: "ok" };
  if (delivery.status === "dead") return { label: "failed", tone: "bad" };
  if (delivery.attempts === 0) return { label: "queued", tone: "" };
  return { label: "retrying", tone: "warn" };
}

function Deliveries({
  agentId,
  deliveries,
  canRetry,
}: {
  agentId: string;
  deliveries: Delivery[];
  canRetry: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
  const retry = useMutation(trpc.webhooks.retry.mutationOptions({ onSuccess: refresh }));
  const redeliver = useMutation(trpc.webhooks.redeliver.mutationOptions({ onSuccess: refresh }));
  return (
    <>
      <FormError message={shownError(retry.error ?? redeliver.error)?.message} />
      <table data-testid="webhook-deliveries" className="stack-on-phone">
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Latency</th>
            <th scope="col">Next try</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => {
            const status = deliveryStatus(d);
            const shown = open === d.eventId;
            return (
              <Fragment key={d.eventId}>
                <tr data-testid="webhook-delivery" data-status={d.status}>
                  <td className="cell-main">
                    <span className="mono truncate">{d.eventType}</span>{" "}
                    <span className="hint nowrap">#{d.eventSeq}</span>
                    {d.problem && (
                      <span className="delivery-problem" data-testid="delivery-problem">
                        {d.problem}
                      </span>
                    )}
                  </td>
                  <td data-label="Status">
                    <span className={`badge ${status.tone}`} data-testid="delivery-status">
                      {status.label}
                    </span>
                  </td>
                  <td data-label="Attempts" className="nowrap">
                    {d.attempts}
                  </td>
                  <td data-label="Latency" className="nowrap">
                    {d.latencyMs === null ? "—" : `${d.latencyMs.toLocaleString()} ms`}
                  </td>
                  <td data-label="Next try" className="nowrap">
                    {d.nextAttemptAt ? (
                      <time dateTime={d.nextAttemptAt} title={formatWhen(d.nextAttemptAt)}>
                        {formatRelative(d.nextAttemptAt)}
                      </time>
                    ) : (
                      "—"
                    )}
                  </td>
                  <td className="actions">
                    <div className="row">
                      {canRetry && d.status !== "succeeded" && (
                        <button
                          type="button"
                          className="secondary small"
                          disabled={retry.isPending}
                          onClick={() => retry.mutate({ agentId, eventId: d.eventId })}
                          data-testid="delivery-retry"
                        >
                          Retry now
                        </button>
                      )}
                      {canRetry && d.status === "succeeded" && (
                        <button
                          type="button"
                          className="secondary small"
                          disabled={redeliver.isPending}
                          onClick={() => redeliver.mutate({ agentId, eventId: d.eventId })}
                          data-testid="delivery-resend"
                        >
                          Resend
                        </button>
                      )}
                      <button
                        type="button"
                        className="secondary small"
                        aria-expanded={shown}
                        aria-controls={`delivery-${d.eventId}`}
                        onClick={() => setOpen(shown ? null : d.eventId)}
                        data-testid="delivery-details-toggle"
                      >
                        {shown ? "Hide details" : "Details"}
                      </button>
                    </div>
                  </td>
                </tr>
                {shown && (
                  <tr className="detail-row">
                    <td colSpan={6} id={`delivery-${d.eventId}`}>
                      <DeliveryDetail agentId={agentId} eventId={d.eventId} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

/** What one delivery sent and got back, and when. */
function DeliveryDetail({ agentId, eventId }: { agentId: string; eventId: string }) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.webhooks.delivery.queryOptions({ agentId, eventId }));
  if (detail.isPending) return <Skeleton lines={4} label="the delivery" />;
  if (detail.error) return <FormError message={shownError(detail.error)?.message} />;
  const d = detail.data;
  return (
    <div className="delivery-detail" data-testid="delivery-detail">
      <dl className="payload">
        <div>
          <dt>Event</dt>
          <dd className="mono">{d.eventId}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatWhen(d.createdAt)}</dd>
        </div>
        <div>
          <dt>Last attempt</dt>
          <dd data-testid="delivery-attempted">
            {d.attemptedAt
              ? `${formatWhen(d.attemptedAt)}${d.latencyMs !== null ? `, answered in ${d.latencyMs.toLocaleString()} ms` : ""}`
              : "not yet"}
          </dd>
        </div>
        {d.nextAttemptAt && (
          <div>
            <dt>Next attempt</dt>
            <dd>{formatWhen(d.nextAttemptAt)}</dd>
          </div>
        )}
        <div>
          <dt>Answer</dt>
          <dd data-testid="delivery-answer">
            {d.response.httpStatus ?? "no answer"}
            {d.problem && <span className="delivery-problem">{d.problem}</span>}
            {d.error && <span className="hint mono"> {d.error}</span>}
          </dd>
        </div>
      </dl>
      <Exchange
        headers={d.request.headers}
        body={d.request.body}
        excerpt={d.response.excerpt}
        testId="delivery"
      />
    </div>
  );
}

/** The delivery log's filters: one event by its id, or the deliveries in one status. */
function DeliveryFilter({
  filter,
  onChange,
}: {
  filter: LogFilter;
  onChange: (filter: LogFilter) => void;
}) {
  return (
    <form
      className="row"
      aria-label="Filter deliveries"
      onSubmit={onFormSubmit((form) => {
        const eventId = String(form.get("eventId") ?? "").trim();
        const status = String(form.get("status") ?? "") as Delivery["status"] | "";
        onChange({ ...(eventId && { eventId }), ...(status && { status }) });
      })}
    >
      <label htmlFor="delivery-event-filter" className="visually-hidden">
        Event id
      </label>
      <input
        id="delivery-event-filter"
        name="eventId"
        className="mono"
        placeholder="evt_…"
        defaultValue={filter.eventId ?? ""}
        data-testid="delivery-filter-event"
      />
      <label htmlFor="delivery-status-filter" className="visually-hidden">
        Status
      </label>
      <select
        id="delivery-status-filter"
        name="status"
        defaultValue={filter.status ?? ""}
        data-testid="delivery-filter-status"
      >
        <option value="">Any status</option>
        <option value="succeeded">Delivered</option>
        <option value="pending">Queued or retrying</option>
        <option value="dead">Failed</option>
      </select>
      <button type="submit" className="secondary small" data-testid="delivery-filter-apply">
        Filter
      </button>
    </form>
  );
}

/** The answer to "Send test event": worked or not, in words, with what went over the wire. */
function TestResult({ result }: { result: RouterOutputs["webhooks"]["sendTest"] }) {
  return (
    <div
      className={`test-result ${result.ok ? "ok" : "bad"}`}
      role="status"
      data-testid="webhook-test-result"
    >
      <p>
        <strong>
          {result.ok
            ? `Test event delivered: answered ${result.httpStatus} in ${result.latencyMs.toLocaleString()} ms.`
            : "Test event not delivered."}
        </strong>{" "}
        {result.problem}
      </p>
      <details>
        <summary>What was sent and what came back</summary>
        <Exchange
          headers={result.request.headers}
          body={result.request.body}
          excerpt={result.excerpt}
        />
      </details>
    </div>
  );
}

/** One request and its answer: the headers and body sent, and the start of the answer. */
function Exchange({
  headers,
  body,
  excerpt,
  testId,
}: {
  headers: Record<string, string> | null;
  body: string | null;
  excerpt: string | null;
  testId?: string;
}) {
  return (
    <div className="detail-grid">
      <div>
        <h4>Request headers</h4>
        <CodeBlock testId={testId && `${testId}-request-headers`}>
          {headers
            ? Object.entries(headers)
                .map(([name, value]) => `${name}: ${value}`)
                .join("\n")
            : "Not sent yet."}
        </CodeBlock>
      </div>
      <div>
        <h4>Request body</h4>
        <CodeBlock testId={testId && `${testId}-request-body`}>
          {body ?? "Not shown: the person no longer lets this agent see this event."}
        </CodeBlock>
      </div>
      <div>
        <h4>Answer body (first 1 KB)</h4>
        <CodeBlock testId={testId && `${testId}-response-body`}>{excerpt || "(empty)"}</CodeBlock>
      </div>
    </div>
  );
}

function WebhookFacts({ webhook, dead }: { webhook: Webhook; dead: number }) {
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
        <dd data-testid="webhook-failures">
          {webhook.consecutiveFailures}
          {webhook.consecutiveFailures > 0 && webhook.state === "active" && (
            <span className="hint"> (too many in a row turn it off)</span>
          )}
        </dd>
      </div>
      <div>
        <dt>Last success</dt>
        <dd>{webhook.lastSuccessAt ? formatWhen(webhook.lastSuccessAt) : "never"}</dd>
      </div>
      <div>
        <dt>Last failure</dt>
        <dd>
          {webhook.lastFailureAt ? formatWhen(webhook.lastFailureAt) : "never"}
          {webhook.lastProblem && (
            <span className="delivery-problem" data-testid="webhook-last-problem">
              {webhook.lastProblem}
            </span>
          )}
        </dd>
      </div>
      {webhook.rotationGraceUntil && (
        <div>
          <dt>Old secret valid until</dt>
          <dd>{formatWhen(webhook.rotationGraceUntil)}</dd>
        </div>
      )}
      {dead > 0 && (
        <div>
          <dt>Failed events</dt>
          <dd data-testid="webhook-dead">{dead}</dd>
        </div>
      )}
    </dl>
  );
}
