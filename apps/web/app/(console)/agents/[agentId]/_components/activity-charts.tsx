"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  Line,
  LineChart,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import { formatDay } from "~/components/format";
import { nextUtcMidnight, useRereadAt } from "~/components/live-updates";
import { humanize } from "~/components/proposal-words";
import { Card } from "~/components/ui/card";
import ui from "~/components/ui/layout.module.css";
import { Skeleton } from "~/components/ui/skeleton";
import { Table } from "~/components/ui/table";
import { useReaderTimes } from "~/components/ui/time";
import { useTRPC } from "~/trpc/client";
import type { RouterOutputs } from "~/trpc/router";
import { useUrlQuery } from "../../_components/use-url-query";
import styles from "./activity-charts.module.css";
import { DEFAULT_RANGE, type Range, rangeFrom, ranges } from "./activity-range";

type History = RouterOutputs["agents"]["history"];

/** Series colours, distinguishable for the common kinds of colour blindness (Okabe–Ito). */
const palette = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#7f7f7f"];
const axis = { fontSize: 12, fill: "#5b6678" };

/**
 * The agent's last 7, 30 or 90 UTC days as charts (recharts): messages sent and received,
 * proposals, refused sends by code, and how its webhook fared (share of events delivered, average
 * latency). Each chart has its numbers as a table under "Numbers" for screen readers and for
 * copying. The previous range stays drawn while a new one loads.
 */
export function ActivityCharts({ agentId }: { agentId: string }) {
  useReaderTimes();
  const trpc = useTRPC();
  const url = useUrlQuery();
  const days = rangeFrom(url.params);
  const history = useQuery({
    ...trpc.agents.history.queryOptions({ agentId, days }),
    placeholderData: keepPreviousData,
  });
  // New counts arrive as wake-ups (`activity:`, `webhook:`); the days shift at midnight UTC.
  useRereadAt(
    trpc.agents.history.queryFilter({ agentId }),
    history.data ? nextUtcMidnight(history.dataUpdatedAt) : null,
  );
  return (
    <Card className={ui.stack} aria-labelledby="activity-heading" data-testid="activity">
      <div className={styles.head}>
        <div>
          <h2 id="activity-heading">Activity</h2>
          <p className={ui.muted} data-testid="activity-range-words">
            The last {days} days (UTC days, as the daily ceilings count them).
          </p>
        </div>
        <RangeControl
          value={days}
          onChange={(range) =>
            url.change({ range: range === DEFAULT_RANGE ? null : String(range) })
          }
        />
      </div>
      {history.isPending && <Skeleton lines={6} label="activity charts" />}
      <FormError message={shownError(history.error)?.message} />
      {history.data && (
        <div aria-busy={history.isPlaceholderData}>
          <Charts history={history.data} />
        </div>
      )}
    </Card>
  );
}

/** A segmented control of the ranges: one radio group, labelled, moved through by arrow keys. */
function RangeControl({ value, onChange }: { value: Range; onChange: (range: Range) => void }) {
  return (
    <fieldset className={styles.range} data-testid="activity-range">
      <legend className={ui.visuallyHidden}>Time range</legend>
      {ranges.map((days) => (
        <label key={days} className={styles.option}>
          <input
            type="radio"
            name="activity-range"
            value={days}
            checked={value === days}
            onChange={() => onChange(days)}
            data-testid={`activity-range-${days}`}
          />
          <span>{days} days</span>
        </label>
      ))}
    </fieldset>
  );
}

function Charts({ history }: { history: History }) {
  const days = history.days.map((d) => ({
    label: formatDay(d.day),
    sent: d.sent,
    received: d.received,
    proposals: d.proposals,
    ...Object.fromEntries(history.refusalCodes.map((code) => [code, d.refusals[code] ?? 0])),
    successRate:
      d.webhook.delivered + d.webhook.failed > 0
        ? Math.round((d.webhook.delivered / (d.webhook.delivered + d.webhook.failed)) * 100)
        : null,
    latency: d.webhook.avgLatencyMs,
  }));
  const total = (pick: (d: History["days"][number]) => number) =>
    history.days.reduce((sum, d) => sum + pick(d), 0);
  const webhookUsed = history.days.some((d) => d.webhook.delivered + d.webhook.failed > 0);
  const noDeliveries = "No deliveries in these days";
  return (
    <div className={styles.charts}>
      <Chart
        title="Messages"
        summary={`${total((d) => d.sent)} sent, ${total((d) => d.received)} received`}
        testId="chart-messages"
        kind="bars"
        series={[
          { key: "sent", name: "Sent", color: palette[0] },
          { key: "received", name: "Received", color: palette[1] },
        ]}
        data={days}
      />
      <Chart
        title="Proposals"
        summary={`${total((d) => d.proposals)} cards sent`}
        testId="chart-proposals"
        kind="bars"
        series={[{ key: "proposals", name: "Proposals", color: palette[2] }]}
        data={days}
      />
      <Chart
        title="Refused sends"
        summary={
          history.refusalCodes.length === 0
            ? "None: every send it tried was allowed"
            : `${total((d) => Object.values(d.refusals).reduce((a, b) => a + b, 0))} refused`
        }
        testId="chart-refusals"
        kind="bars"
        series={history.refusalCodes.map((code, i) => ({
          key: code,
          name: humanize(code),
          color: palette[(i + 5) % palette.length],
        }))}
        data={days}
      />
      <Chart
        title="Webhook deliveries"
        summary={webhookUsed ? "Share of each day's events delivered" : noDeliveries}
        testId="chart-webhook-success"
        kind="line"
        unit="%"
        domain={[0, 100]}
        series={[{ key: "successRate", name: "Delivered (%)", color: palette[2] }]}
        data={days}
      />
      <Chart
        title="Webhook latency"
        summary={webhookUsed ? "Average time to answer, per day" : noDeliveries}
        testId="chart-webhook-latency"
        kind="line"
        unit=" ms"
        series={[{ key: "latency", name: "Average latency (ms)", color: palette[0] }]}
        data={days}
      />
    </div>
  );
}

interface Series {
  key: string;
  name: string;
  color: string | undefined;
}

/**
 * One chart of daily values with its title, a one-line summary, and its numbers as a table:
 * stacked bars (counts) or a line (a rate or a time, gaps bridged).
 */
function Chart({
  title,
  summary,
  series,
  data,
  kind,
  unit,
  domain,
  testId,
}: {
  title: string;
  summary: string;
  series: Series[];
  data: ({ label: string } & Record<string, string | number | null>)[];
  kind: "bars" | "line";
  unit?: string;
  domain?: [number, number];
  testId: string;
}) {
  const axes = [
    <CartesianGrid key="grid" vertical={false} stroke="#e3e7ed" />,
    <XAxis key="x" dataKey="label" tick={axis} interval="preserveStartEnd" />,
    <YAxis key="y" allowDecimals={false} unit={unit} domain={domain} tick={axis} />,
    <Tooltip key="tip" />,
    ...(series.length > 1 ? [<Legend key="legend" />] : []),
  ];
  const margin = { top: 8, right: 8, bottom: 0, left: unit === " ms" ? -8 : -16 };
  return (
    <figure className={styles.chart} data-testid={testId}>
      <figcaption>
        <strong>{title}</strong> <span className={ui.hint}>{summary}</span>
      </figcaption>
      <div className={styles.chartArea} aria-hidden="true">
        <ResponsiveContainer width="100%" height={170}>
          {kind === "bars" ? (
            <BarChart accessibilityLayer={false} data={data} margin={margin}>
              {axes}
              {series.map((s) => (
                <Bar key={s.key} dataKey={s.key} name={s.name} fill={s.color} stackId="all" />
              ))}
            </BarChart>
          ) : (
            <LineChart accessibilityLayer={false} data={data} margin={margin}>
              {axes}
              {series.map((s) => (
                <Line
                  key={s.key}
                  dataKey={s.key}
                  name={s.name}
                  stroke={s.color}
                  strokeWidth={2}
                  connectNulls
                  isAnimationActive={false}
                />
              ))}
            </LineChart>
          )}
        </ResponsiveContainer>
      </div>
      {series.length > 0 && (
        <details className={styles.numbers}>
          <summary>Numbers</summary>
          <Table>
            <thead>
              <tr>
                <th scope="col">Day</th>
                {series.map((s) => (
                  <th scope="col" key={s.key}>
                    {s.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {data.map((row) => (
                <tr key={row.label}>
                  <th scope="row">{row.label}</th>
                  {series.map((s) => (
                    <td key={s.key}>{row[s.key] ?? "—"}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </Table>
        </details>
      )}
    </figure>
  );
}
