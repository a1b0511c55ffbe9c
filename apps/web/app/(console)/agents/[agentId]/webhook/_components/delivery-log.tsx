"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import { formatNumber, formatRelative, formatWhen } from "~/components/format";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { EmptyState } from "~/components/ui/empty-state";
import ui from "~/components/ui/layout.module.css";
import { cell, Table } from "~/components/ui/table";
import { RelativeTime, useReaderTimes } from "~/components/ui/time";
import { useTRPC } from "~/trpc/client";
import { DeliveryDetail } from "./delivery-detail";
import { DeliveryFilters } from "./delivery-filters";
import styles from "./delivery-log.module.css";
import { isFiltered, type LogView } from "./log-view";
import webhookStyles from "./webhook.module.css";
import type { Delivery, WebhookData } from "./webhook-data";

/** A delivery's status in a word: delivered, queued, retrying, failed (given up). */
function deliveryStatus(delivery: Delivery): { label: string; tone: BadgeTone } {
  if (delivery.status === "succeeded") return { label: "delivered", tone: "ok" };
  if (delivery.status === "dead") return { label: "failed", tone: "bad" };
  if (delivery.attempts === 0) return { label: "queued", tone: "neutral" };
  return { label: "retrying", tone: "warn" };
}

/**
 * The webhook's delivery log, as payment dashboards show theirs: each event's latest delivery
 * (when, what, how it went, how many attempts, how long the endpoint took), newest first, a page
 * at a time, narrowed by status, event type or one event. The view lives in the URL (`view`,
 * changed through `onView`); new deliveries arrive by the page's wake-ups.
 */
export function DeliveryLog({
  agentId,
  data,
  view,
  onView,
  loading,
}: {
  agentId: string;
  data: WebhookData | undefined;
  view: LogView;
  onView: (view: LogView) => void;
  /** A new view is being read; the rows shown are the previous view's. */
  loading: boolean;
}) {
  useReaderTimes();
  const { status, eventType, eventId } = view;
  const filters = { status, eventType, eventId };
  const deliveries = data?.deliveries ?? [];
  const paged = view.before !== undefined || view.after !== undefined;
  return (
    <Card className={ui.stack} aria-labelledby="deliveries-heading">
      <div>
        <h2 id="deliveries-heading">Deliveries</h2>
        <p className={ui.muted}>
          Each event sent to the endpoint and its latest attempt, newest first.
        </p>
      </div>
      <DeliveryFilters filters={filters} onChange={onView} />
      {data && deliveries.length === 0 ? (
        <div className={styles.none} data-testid="deliveries-none">
          <EmptyState>
            {isFiltered(view)
              ? "No deliveries match these filters."
              : paged
                ? "No deliveries on this page."
                : data.webhook
                  ? "No deliveries yet: each event of this agent shows here once it is sent."
                  : "No deliveries: set a URL above and each event shows here as it goes out."}
          </EmptyState>
          {(isFiltered(view) || paged) && (
            <Button variant="secondary" small onClick={() => onView(paged ? filters : {})}>
              {paged ? "Show the newest" : "Clear filters"}
            </Button>
          )}
        </div>
      ) : (
        <DeliveryTable
          agentId={agentId}
          deliveries={deliveries}
          canRetry={data?.webhook?.state === "active"}
          loading={loading}
        />
      )}
      {data && (data.newer || data.older) && (
        <nav className={styles.pager} aria-label="Pages of deliveries">
          {[
            {
              label: (
                <>
                  <span aria-hidden="true">← </span>Newer
                </>
              ),
              to: data.newer,
              testId: "deliveries-newer",
            },
            {
              label: (
                <>
                  Older<span aria-hidden="true"> →</span>
                </>
              ),
              to: data.older,
              testId: "deliveries-older",
            },
          ].map(({ label, to, testId }) => (
            <Button
              key={testId}
              variant="secondary"
              small
              disabled={!to || loading}
              onClick={() => to && onView({ ...filters, ...to })}
              data-testid={testId}
            >
              {label}
            </Button>
          ))}
        </nav>
      )}
    </Card>
  );
}

function DeliveryTable({
  agentId,
  deliveries,
  canRetry,
  loading,
}: {
  agentId: string;
  deliveries: Delivery[];
  canRetry: boolean;
  loading: boolean;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState<string | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
  const retry = useMutation(trpc.webhooks.retry.mutationOptions({ onSuccess: refresh }));
  const redeliver = useMutation(trpc.webhooks.redeliver.mutationOptions({ onSuccess: refresh }));
  // A delivered event can be sent again ("Resend"); any other is retried at once.
  const again = (d: Delivery) =>
    d.status === "succeeded"
      ? { mutation: redeliver, label: "Resend", testId: "delivery-resend" }
      : { mutation: retry, label: "Retry now", testId: "delivery-retry" };
  return (
    <>
      <FormError message={shownError(retry.error ?? redeliver.error)?.message} />
      <Table
        stackOnPhone
        data-testid="webhook-deliveries"
        className={styles.log}
        aria-busy={loading}
      >
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Latency</th>
            <th scope="col">
              <span className={ui.visuallyHidden}>Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => {
            const status = deliveryStatus(d);
            const shown = open === d.eventId;
            const redo = again(d);
            return (
              <Fragment key={d.eventId}>
                <tr data-testid="webhook-delivery" data-status={d.status} data-seq={d.eventSeq}>
                  <td data-label="Time" className={ui.nowrap}>
                    <RelativeTime iso={d.createdAt} />
                  </td>
                  <td className={cell.main}>
                    <span className={`${ui.mono} ${ui.truncate}`} data-testid="delivery-type">
                      {d.eventType}
                    </span>{" "}
                    <span className={`${ui.hint} ${ui.nowrap}`}>#{d.eventSeq}</span>
                    {d.problem && (
                      <span
                        className={webhookStyles.deliveryProblem}
                        data-testid="delivery-problem"
                      >
                        {d.problem}
                      </span>
                    )}
                  </td>
                  <td data-label="Status">
                    <span className={styles.status}>
                      <Badge tone={status.tone} data-testid="delivery-status">
                        {status.label}
                      </Badge>
                      {d.status === "pending" && d.nextAttemptAt && (
                        <time
                          className={`${ui.hint} ${ui.nowrap}`}
                          dateTime={d.nextAttemptAt}
                          title={formatWhen(d.nextAttemptAt)}
                        >
                          next try {formatRelative(d.nextAttemptAt)}
                        </time>
                      )}
                    </span>
                  </td>
                  <td data-label="Attempts" className={ui.nowrap} data-testid="delivery-attempts">
                    {d.attempts}
                  </td>
                  <td data-label="Latency" className={ui.nowrap} data-testid="delivery-latency">
                    {d.latencyMs === null ? "—" : `${formatNumber(d.latencyMs)} ms`}
                  </td>
                  <td className={cell.actions}>
                    <div className={ui.row}>
                      {canRetry && (
                        <Button
                          variant="secondary"
                          small
                          disabled={redo.mutation.isPending}
                          onClick={() => redo.mutation.mutate({ agentId, eventId: d.eventId })}
                          data-testid={redo.testId}
                        >
                          {redo.label}
                        </Button>
                      )}
                      <Button
                        variant="secondary"
                        small
                        aria-expanded={shown}
                        aria-controls={`delivery-${d.eventId}`}
                        onClick={() => setOpen(shown ? null : d.eventId)}
                        data-testid="delivery-details-toggle"
                      >
                        {shown ? "Hide details" : "Details"}
                      </Button>
                    </div>
                  </td>
                </tr>
                {shown && (
                  <tr className={webhookStyles.detailRow}>
                    <td colSpan={6} id={`delivery-${d.eventId}`}>
                      <DeliveryDetail agentId={agentId} eventId={d.eventId} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </Table>
    </>
  );
}
