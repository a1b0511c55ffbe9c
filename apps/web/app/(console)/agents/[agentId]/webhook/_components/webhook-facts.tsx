import { formatWhen } from "~/components/format";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import ui from "~/components/ui/layout.module.css";
import { useReaderTimes } from "~/components/ui/time";
import styles from "./webhook.module.css";
import type { Webhook } from "./webhook-data";

/** The webhook's health in a word, coloured by how much it needs the owner. */
export function HealthBadge({ webhook }: { webhook: Webhook }) {
  const [label, tone]: [string, BadgeTone] =
    webhook.state === "disabled"
      ? ["turned off", "bad"]
      : webhook.consecutiveFailures > 0
        ? ["failing", "bad"]
        : webhook.lastSuccessAt
          ? ["healthy", "ok"]
          : ["waiting for events", "neutral"];
  return (
    <Badge tone={tone} data-testid="webhook-state" data-state={webhook.state}>
      {label}
    </Badge>
  );
}

/** Where events go and how the last deliveries went: URL, failures, successes, secrets. */
export function WebhookFacts({ webhook, dead }: { webhook: Webhook; dead: number }) {
  useReaderTimes();
  return (
    <dl className={`${ui.payload} ${styles.facts}`} data-testid="webhook-facts">
      <div>
        <dt>URL</dt>
        <dd className={ui.mono} data-testid="webhook-url">
          {webhook.url}
        </dd>
      </div>
      <div>
        <dt>Failures in a row</dt>
        <dd data-testid="webhook-failures">
          {webhook.consecutiveFailures}
          {webhook.consecutiveFailures > 0 && webhook.state === "active" && (
            <span className={ui.hint}> (too many in a row turn it off)</span>
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
            <span className={styles.deliveryProblem} data-testid="webhook-last-problem">
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
