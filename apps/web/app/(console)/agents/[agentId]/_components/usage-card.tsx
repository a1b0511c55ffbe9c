import { nextUtcMidnight } from "~/components/live-updates";
import { Card } from "~/components/ui/card";
import ui from "~/components/ui/layout.module.css";
import type { RouterOutputs } from "~/trpc/router";
import styles from "./usage-card.module.css";

type Usage = RouterOutputs["agents"]["get"]["usage"];

function Meter({
  label,
  value,
  max,
  testId,
}: {
  label: string;
  value: number;
  max: number;
  testId: string;
}) {
  const share = max > 0 ? Math.min(100, Math.round((value / max) * 100)) : 0;
  return (
    <div className={styles.meter} data-testid={testId}>
      <span>{label}</span>
      {/* The numbers beside the bar say it all; the bar is decoration for sighted readers. */}
      <div className={styles.bar} aria-hidden="true">
        <span style={{ width: `${share}%` }} className={share >= 80 ? styles.high : undefined} />
      </div>
      <span className={`${ui.mono} ${styles.numbers}`}>
        {value} / {max}
      </span>
    </div>
  );
}

/** Today's use against the daily ceilings, and this minute's rates. */
export function UsageCard({ usage }: { usage: Usage }) {
  return (
    <Card className={ui.stack} aria-labelledby="usage-heading">
      <div>
        <h2 id="usage-heading">Usage</h2>
        <p className={ui.muted}>
          Today ({usage.day}, UTC). Reaching a daily ceiling pauses the agent until you resume it.
        </p>
      </div>
      <Meter
        label="Messages"
        value={usage.usage.messages}
        max={usage.ceilings.messages}
        testId="usage-messages"
      />
      <Meter
        label="Proposals"
        value={usage.usage.proposals}
        max={usage.ceilings.proposals}
        testId="usage-proposals"
      />
      <Meter
        label="Refused sends"
        value={usage.usage.refused}
        max={usage.ceilings.refused}
        testId="usage-refused"
      />
      <p className={ui.muted}>This minute (resets in {usage.perMinute.requests.resetSeconds} s):</p>
      <Meter
        label="API requests"
        value={usage.perMinute.requests.count}
        max={usage.perMinute.requests.limit}
        testId="rate-requests"
      />
      <Meter
        label="Messages"
        value={usage.perMinute.messages.count}
        max={usage.perMinute.messages.limit}
        testId="rate-messages"
      />
    </Card>
  );
}

/**
 * When the card's figures next go out of date, no wake-up announcing it: the end of the minute
 * its rates count (if they counted anything), otherwise midnight UTC, when the day's counts reset.
 */
export function usageExpiresAt(usage: Usage, readAt: number): number {
  const { requests, messages } = usage.perMinute;
  return requests.count + messages.count > 0
    ? readAt + Math.max(1, requests.resetSeconds) * 1000
    : nextUtcMidnight(readAt);
}
