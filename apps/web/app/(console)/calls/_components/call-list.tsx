"use client";

import type { AgentUser, PersonCall } from "@switchboard/contract";
import { useQuery } from "@tanstack/react-query";
import { Badge } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";
import { EmptyState } from "~/components/ui/empty-state";
import ui from "~/components/ui/layout.module.css";
import { RelativeTime } from "~/components/ui/time";
import { useTRPC } from "~/trpc/client";
import styles from "../calls.module.css";

/** The person's calls (kept live by the console: an ended call appears without a reload). */
export function CallList() {
  const trpc = useTRPC();
  const calls = useQuery(trpc.calls.list.queryOptions());
  const me = useQuery(trpc.auth.me.queryOptions());
  return (
    <section aria-label="Your calls">
      {calls.isPending && <p className={ui.muted}>Loading…</p>}
      {calls.error && <p className={ui.formError}>{calls.error.message}</p>}
      {calls.data?.length === 0 && <EmptyState data-testid="calls-empty">No calls yet.</EmptyState>}
      <ol className={styles.calls} data-testid="calls">
        {calls.data?.map((call) => (
          <CallCard key={call.id} call={call} myId={me.data?.id} />
        ))}
      </ol>
    </section>
  );
}

const nameOf = (user: AgentUser) => user.displayName ?? user.num;

function CallCard({ call, myId }: { call: PersonCall; myId: string | undefined }) {
  const others = call.participants.filter((p) => p.id !== myId);
  return (
    <Card as="li" className={styles.call} data-testid="call" data-call-id={call.id}>
      <header className={styles.head}>
        <h2 data-testid="call-title">
          {call.isGroup ? "Group call with " : "Call with "}
          {others.map(nameOf).join(", ")}
        </h2>
        {call.isGroup && <Badge>group</Badge>}
      </header>
      <p className={`${ui.hint} ${styles.when}`}>
        <RelativeTime iso={call.startedAt} /> ·{" "}
        <span data-testid="call-duration">{formatDuration(call.duration)}</span>
      </p>
      {call.transcript === null ? (
        <p className={ui.muted} data-testid="call-untranscribed">
          This call was not transcribed, so there is no summary.
        </p>
      ) : (
        <>
          <div className={styles.summary}>
            <h3>Your summary</h3>
            <p data-testid="call-summary">{call.summary ?? "No summary was written for you."}</p>
          </div>
          <details className={styles.transcript}>
            <summary data-testid="call-transcript-toggle">Transcript</summary>
            <pre data-testid="call-transcript">{call.transcript}</pre>
          </details>
        </>
      )}
    </Card>
  );
}

/** 0 s, 45 s, 2 min 5 s, 1 h 3 min. */
function formatDuration(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return s > 0 ? `${m} min ${s} s` : `${m} min`;
  return `${s} s`;
}
