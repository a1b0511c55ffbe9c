"use client";

import type { AgentDecision, DecisionCursor } from "@switchboard/contract";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { formatTime } from "~/components/format";
import { rejectionWords } from "~/components/proposal-words";
import { Badge, type BadgeTone } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
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
 * changes (edited), rejected and expired, and the decisions newest first, a page at a time.
 */
export function DecisionsCard({ agentId }: { agentId: string }) {
  useReaderTimes();
  const trpc = useTRPC();
  const [pages, setPages] = useState<(DecisionCursor | undefined)[]>([undefined]);
  const before = pages[pages.length - 1];
  const query = useQuery(
    trpc.agents.decisions.queryOptions({ agentId, before, limit: DECISIONS_PER_PAGE }),
  );
  const data = query.data;

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
          {(pages.length > 1 || data.next) && (
            <div className={ui.row}>
              {pages.length > 1 && (
                <Button variant="secondary" small onClick={() => setPages((p) => p.slice(0, -1))}>
                  Newer
                </Button>
              )}
              {data.next && (
                <Button
                  variant="secondary"
                  small
                  onClick={() => setPages((p) => [...p, data.next ?? undefined])}
                  data-testid="decisions-older"
                >
                  Older
                </Button>
              )}
            </div>
          )}
        </>
      )}
    </Card>
  );
}
