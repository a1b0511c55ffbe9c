"use client";

import type { AgentDecision } from "@switchboard/contract";
import { useInfiniteQuery } from "@tanstack/react-query";
import { formatTime } from "~/components/format";
import { eachOnce, olderPageOf, ShowOlder } from "~/components/paged-list";
import { rejectionWords } from "~/components/proposal-words";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import { Card } from "~/components/ui/card";
import { EmptyState } from "~/components/ui/empty-state";
import ui from "~/components/ui/layout.module.css";
import { Skeleton } from "~/components/ui/skeleton";
import { cell, Table } from "~/components/ui/table";
import { useReaderTimes } from "~/components/ui/time";
import { useTRPC } from "~/trpc/client";
import { DECISIONS_PER_PAGE } from "./decision-pages";
import styles from "./decisions-card.module.css";

/** What became of a proposal, in the owner's words. */
function outcomeWords(decision: AgentDecision): string {
  if (decision.via === "auto_execute") return "ran automatically";
  if (decision.via === "contact_removed") return "rejected (agent removed)";
  if (decision.outcome === "approved")
    return decision.changes > 0
      ? `approved with ${decision.changes} ${decision.changes === 1 ? "change" : "changes"}`
      : "approved";
  return decision.outcome;
}

const badge = (decision: AgentDecision): BadgeTone =>
  decision.outcome === "approved"
    ? decision.changes > 0
      ? "warn"
      : "ok"
    : decision.outcome === "rejected"
      ? "off"
      : "neutral";

/** Why the person rejected it, when they said: what the owner can improve the agent by. */
function Reason({ decision }: { decision: AgentDecision }) {
  const words = rejectionWords(decision.rejection);
  if (!words) return null;
  return (
    <p className={`${ui.hint} ${styles.reason}`} data-testid="decision-reason">
      {words}
    </p>
  );
}

/**
 * How people decided the agent's proposals: how many were approved as proposed, approved with
 * changes (edited), rejected and expired, and the decisions newest first, a page at a time:
 * "Show older decisions" adds the next page under the ones shown (a live change re-reads them).
 */
export function DecisionsCard({ agentId }: { agentId: string }) {
  useReaderTimes();
  const trpc = useTRPC();
  const query = useInfiniteQuery(
    trpc.agents.decisions.infiniteQueryOptions(
      { agentId, limit: DECISIONS_PER_PAGE },
      { getNextPageParam: (last) => last.next ?? undefined },
    ),
  );
  const pages = query.data?.pages ?? [];
  const first = pages[0];
  // The counts are the newest page's (each page carries them); decisions keep their pages' order.
  const data = first && {
    counts: first.counts,
    decisions: eachOnce(
      pages.flatMap((page) =>
        page.decisions.map((decision) => ({ ...decision, id: decision.actionId })),
      ),
    ),
  };
  const older = olderPageOf(query);

  return (
    <Card className={ui.stack} aria-labelledby="decisions-heading" data-testid="decisions">
      <div>
        <h2 id="decisions-heading">Decisions</h2>
        <p className={ui.muted}>
          How people answered this agent's proposals, with their reasons for rejecting any. Edited:
          approved with changes.
        </p>
      </div>
      {query.error && <p className={ui.formError}>{query.error.message}</p>}
      {!data && !query.error && <Skeleton lines={3} label="the decisions" />}
      {data && (
        <>
          <dl className={styles.counts} data-testid="decision-counts">
            {(["approved", "edited", "rejected", "expired"] as const).map((key) => (
              <div key={key} data-testid={`decisions-${key}`}>
                <dt className={ui.muted}>{key.charAt(0).toUpperCase() + key.slice(1)}</dt>
                <dd>{data.counts[key]}</dd>
              </div>
            ))}
          </dl>
          {data.decisions.length === 0 ? (
            <EmptyState>No decisions yet.</EmptyState>
          ) : (
            <Table stackOnPhone data-testid="decision-list">
              <thead>
                <tr>
                  <th scope="col">Proposal</th>
                  <th scope="col">Person</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">When</th>
                </tr>
              </thead>
              <tbody>
                {data.decisions.map((decision) => (
                  <tr key={decision.actionId} data-testid="decision-row">
                    <td className={cell.main}>{decision.title}</td>
                    <td data-label="Person">
                      {decision.person.displayName ?? decision.person.num}
                    </td>
                    <td data-label="Outcome">
                      <Badge tone={badge(decision)}>{outcomeWords(decision)}</Badge>
                      {decision.via === "cli" && <span className={ui.muted}> · CLI</span>}
                      <Reason decision={decision} />
                    </td>
                    <td data-label="When">
                      <time dateTime={decision.at}>{formatTime(decision.at)}</time>
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
          {older && <ShowOlder older={older} what="decisions" testId="decisions-older" />}
        </>
      )}
    </Card>
  );
}
