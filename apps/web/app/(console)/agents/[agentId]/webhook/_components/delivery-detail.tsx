"use client";

import { useQuery } from "@tanstack/react-query";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import { formatNumber, formatWhen } from "~/components/format";
import ui from "~/components/ui/layout.module.css";
import { Skeleton } from "~/components/ui/skeleton";
import { useReaderTimes } from "~/components/ui/time";
import { useTRPC } from "~/trpc/client";
import { Exchange } from "./exchange";
import styles from "./webhook.module.css";

/** What one delivery sent and got back, and when. */
export function DeliveryDetail({ agentId, eventId }: { agentId: string; eventId: string }) {
  useReaderTimes();
  const trpc = useTRPC();
  const detail = useQuery(trpc.webhooks.delivery.queryOptions({ agentId, eventId }));
  if (detail.isPending) return <Skeleton lines={4} label="the delivery" />;
  if (detail.error) return <FormError message={shownError(detail.error)?.message} />;
  const d = detail.data;
  return (
    <div className={styles.deliveryDetail} data-testid="delivery-detail">
      <dl className={ui.payload}>
        <div>
          <dt>Event</dt>
          <dd className={ui.mono} data-testid="delivery-event-id">
            {d.eventId}
          </dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>{formatWhen(d.createdAt)}</dd>
        </div>
        <div>
          <dt>Last attempt</dt>
          <dd data-testid="delivery-attempted">
            {d.attemptedAt
              ? `${formatWhen(d.attemptedAt)}${d.latencyMs !== null ? `, answered in ${formatNumber(d.latencyMs)} ms` : ""}`
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
            {d.problem && <span className={styles.deliveryProblem}>{d.problem}</span>}
            {d.error && <span className={`${ui.hint} ${ui.mono}`}> {d.error}</span>}
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
