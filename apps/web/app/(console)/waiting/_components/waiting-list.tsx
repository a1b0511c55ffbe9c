"use client";

import type { AgentUser } from "@switchboard/contract";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRereadAt } from "~/components/live-updates";
import { EmptyState } from "~/components/ui/empty-state";
import ui from "~/components/ui/layout.module.css";
import { countRereadAt, waitingWords } from "~/components/waiting-count";
import { useTRPC } from "~/trpc/client";
import { ApprovalCard } from "../../chats/_components/approval-card";
import styles from "../waiting.module.css";

const nameOf = (agent: AgentUser) => agent.displayName ?? agent.num;

/**
 * The cards waiting on the person, kept live: a card proposed, decided or expired anywhere shows
 * here without a reload (a `chat` change), and the list is read again as the first card runs
 * out of time. Each card is the chat's own, headed by its agent and a link to the chat.
 */
export function WaitingList({ since }: { since: number }) {
  const trpc = useTRPC();
  const waiting = useQuery(trpc.chats.waiting.queryOptions({ since }));
  useRereadAt(trpc.chats.waiting.queryFilter(), countRereadAt(waiting.data?.nextExpiresAt ?? null));
  const data = waiting.data;
  const targets = new Map(data?.targets.map((target) => [target.actionId, target]));
  const shown = data?.cards.filter((card) => card.action.state === "pending").length ?? 0;
  return (
    <section aria-label="Cards waiting for you">
      {waiting.isPending && <p className={ui.muted}>Loading…</p>}
      {waiting.error && <p className={ui.formError}>{waiting.error.message}</p>}
      {data && data.cards.length > 0 && (
        <h2 id="waiting-count" className={styles.count} data-testid="waiting-count">
          {waitingWords(data.count)}
        </h2>
      )}
      {data && data.count > shown && (
        <p className={ui.hint} data-testid="waiting-more">
          The {shown} expiring first are here; open a chat for the others.
        </p>
      )}
      {data?.cards.length === 0 && (
        <EmptyState data-testid="waiting-empty">
          Nothing waits for you. When an agent asks you to approve something, its card shows up here
          and in its chat.
        </EmptyState>
      )}
      <ol className={styles.cards} data-testid="waiting-cards">
        {data?.cards.map((card) => (
          <ApprovalCard
            key={card.action.id}
            message={{ id: card.messageId, decision: card.decision }}
            action={card.action}
            target={targets.get(card.action.id)}
            from={
              <p className={styles.from} data-testid="waiting-from">
                <span className={ui.truncate}>From {nameOf(card.agent)}</span>
                <Link
                  href={`/chats/${card.action.conversationId}#card-${card.messageId}`}
                  data-testid="waiting-open-chat"
                >
                  Open the chat<span className={ui.visuallyHidden}> with {nameOf(card.agent)}</span>
                </Link>
              </p>
            }
          />
        ))}
      </ol>
    </section>
  );
}
