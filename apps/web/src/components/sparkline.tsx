"use client";

import { Line, LineChart, YAxis } from "recharts";
import { formatLongDay, formatNumber } from "./format";
import styles from "./sparkline.module.css";
import ui from "./ui/layout.module.css";

/**
 * A week of counts as a small line (recharts), with the numbers for screen readers. It draws
 * only in the browser; the server renders the text alone.
 */
export function Sparkline({
  days,
  label,
  testId,
}: {
  days: { day: string; messages: number }[];
  label: string;
  testId?: string;
}) {
  const total = days.reduce((sum, d) => sum + d.messages, 0);
  const spoken = days.map((d) => `${formatLongDay(d.day)}: ${d.messages}`).join("; ");
  return (
    <span className={styles.sparkline} data-testid={testId} title={spoken}>
      <span aria-hidden="true" className={styles.chart}>
        <LineChart
          accessibilityLayer={false}
          width={84}
          height={26}
          data={days}
          margin={{ top: 3, right: 2, bottom: 3, left: 2 }}
        >
          <YAxis hide domain={[0, "dataMax"]} />
          <Line
            type="monotone"
            dataKey="messages"
            stroke="currentColor"
            strokeWidth={1.75}
            dot={false}
            isAnimationActive={false}
          />
        </LineChart>
      </span>
      <span className={`${styles.total} ${ui.nowrap}`} data-testid={testId && `${testId}-total`}>
        {formatNumber(total)}
      </span>
      <span className={ui.visuallyHidden}>
        {label}: {spoken}
      </span>
    </span>
  );
}
