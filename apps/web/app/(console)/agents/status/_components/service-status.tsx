"use client";

import type { Readiness } from "@switchboard/contract";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import { formatDistance, formatNumber, formatRelative, formatWhen } from "~/components/format";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { EmptyState } from "~/components/ui/empty-state";
import ui from "~/components/ui/layout.module.css";
import { Skeleton } from "~/components/ui/skeleton";
import { cell, Table } from "~/components/ui/table";
import { useReaderTimes } from "~/components/ui/time";
import { useTRPC } from "~/trpc/client";

/** What the status page shows: the service's state, its work queue and the owner's webhooks. */
export function ServiceStatus() {
  useReaderTimes();
  const trpc = useTRPC();
  // Nothing announces a change of the instance's own state: read it again whenever the tab comes
  // back into focus, however recently the page read it.
  const status = useQuery({
    ...trpc.instance.status.queryOptions(),
    refetchOnWindowFocus: "always",
  });
  const data = status.data;
  return (
    <>
      {status.isPending && <Skeleton label="the service status" />}
      {status.error && <FormError message={shownError(status.error)?.message} />}
      {data && (
        <>
          <Card aria-labelledby="service-heading">
            <h2 id="service-heading">Service</h2>
            <dl className={ui.payload} data-testid="service-facts">
              <dt>State</dt>
              <dd>
                {data.readiness.status === "ready" ? (
                  <Badge tone="ok" data-testid="service-state">
                    Ready
                  </Badge>
                ) : (
                  <Badge tone="bad" data-testid="service-state">
                    Not ready
                  </Badge>
                )}{" "}
                <span className={ui.muted}>{readinessWords(data.readiness.checks)}</span>
              </dd>
              <dt>Version</dt>
              <dd data-testid="service-version">
                {data.version} <span className={ui.muted}>(Node {data.node})</span>
              </dd>
              <dt>Up for</dt>
              <dd title={formatWhen(data.startedAt)} suppressHydrationWarning>
                {formatDistance(Date.now() - Date.parse(data.startedAt))}{" "}
                <span className={ui.muted}>(this web process)</span>
              </dd>
            </dl>
          </Card>

          <p className={ui.muted} data-testid="status-checked">
            Checked{" "}
            <time dateTime={new Date(status.dataUpdatedAt).toISOString()}>
              {formatWhen(new Date(status.dataUpdatedAt).toISOString())}
            </time>
            .{" "}
            <Button
              variant="secondary"
              small
              onClick={() => void status.refetch()}
              disabled={status.isFetching}
              data-testid="status-check-again"
            >
              {status.isFetching ? "Checking…" : "Check again"}
            </Button>
          </p>

          <Card aria-labelledby="queue-heading">
            <h2 id="queue-heading">Work queue</h2>
            <p className={ui.muted}>
              Webhook deliveries, reminders and expiring cards wait here for a worker.
            </p>
            <dl className={ui.payload} data-testid="queue-facts">
              <dt>Waiting now</dt>
              <dd data-testid="queue-ready">
                {formatNumber(data.queue.ready)}{" "}
                {data.queue.ready > 0 &&
                  (data.queue.oldestSeconds > 60 ? (
                    <Badge tone="warn">{oldest(data.queue.oldestSeconds)}</Badge>
                  ) : (
                    <span className={ui.muted}>{oldest(data.queue.oldestSeconds)}</span>
                  ))}
              </dd>
              <dt>Given up</dt>
              <dd data-testid="queue-failed">
                {formatNumber(data.queue.failed)}{" "}
                <span className={ui.muted}>(jobs that used every attempt)</span>
              </dd>
            </dl>
          </Card>

          <Card aria-labelledby="webhooks-heading">
            <h2 id="webhooks-heading">Your webhooks</h2>
            {data.failingWebhooks.length === 0 ? (
              <EmptyState data-testid="webhooks-healthy">
                None of your agents' webhooks is failing.
              </EmptyState>
            ) : (
              <Table stackOnPhone data-testid="failing-webhooks">
                <thead>
                  <tr>
                    <th scope="col">Agent</th>
                    <th scope="col">State</th>
                    <th scope="col">Recent failures</th>
                    <th scope="col">Last failure</th>
                    <th scope="col">What to check</th>
                  </tr>
                </thead>
                <tbody>
                  {data.failingWebhooks.map((hook) => (
                    <tr key={hook.agentId} data-testid="failing-webhook">
                      <td className={cell.main}>
                        <Link
                          href={`/agents/${hook.agentId}/webhook`}
                          className={`${ui.strongLink} ${ui.truncate}`}
                        >
                          {hook.displayName ?? hook.agentId}
                        </Link>
                      </td>
                      <td data-label="State">
                        <Badge tone={hook.state === "active" ? "warn" : "bad"}>
                          {hook.state === "disabled"
                            ? "Disabled"
                            : hook.retrying > 0
                              ? `Retrying ${hook.retrying}`
                              : hook.consecutiveFailures > 0
                                ? `Failing (${hook.consecutiveFailures} in a row)`
                                : "Some recent failures"}
                        </Badge>
                      </td>
                      <td
                        data-label="Recent failures"
                        className={ui.nowrap}
                        data-testid="failure-rate"
                      >
                        {hook.recent > 0
                          ? `${Math.round(hook.failureRate * 100)}% of the last ${hook.recent}`
                          : "—"}
                      </td>
                      <td data-label="Last failure" className={ui.nowrap} suppressHydrationWarning>
                        {hook.lastFailureAt ? formatRelative(hook.lastFailureAt) : "—"}
                      </td>
                      <td data-label="What to check" className={cell.long}>
                        {hook.problem ?? "—"}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            )}
          </Card>
        </>
      )}
    </>
  );
}

function readinessWords(checks: Readiness["checks"]): string {
  if (checks.draining) return "This process is shutting down.";
  if (checks.database === "unreachable") return "The database does not answer.";
  if (checks.migrations && checks.migrations.applied < checks.migrations.expected)
    return `The database is behind this version (${checks.migrations.applied} of ${checks.migrations.expected} migrations): run npm run migrate.`;
  return "Database reachable, migrations current.";
}

const oldest = (seconds: number) => `oldest ${formatDistance(seconds * 1000)}`;
