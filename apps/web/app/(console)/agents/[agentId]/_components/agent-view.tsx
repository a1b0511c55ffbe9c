"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRereadAt } from "~/components/live-updates";
import { Card } from "~/components/ui/card";
import ui from "~/components/ui/layout.module.css";
import { Skeleton } from "~/components/ui/skeleton";
import { useTRPC } from "~/trpc/client";
import { ActivityCharts } from "./activity-charts";
import { DecisionsCard } from "./decisions-card";
import { PauseControl } from "./pause-control";
import { ProfileCard } from "./profile-card";
import { TokensCard } from "./tokens-card";
import { UsageCard, usageExpiresAt } from "./usage-card";

/** The agent page for its owner, once the server page has read its first data. */
export function AgentView({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  // Usage and an automatic pause change without the owner doing anything: each wakes this page
  // (`activity:`, `agent:`). This minute's rates and today's counts expire with time; re-read then.
  const agent = useQuery(trpc.agents.get.queryOptions({ agentId }));
  useRereadAt(
    trpc.agents.get.queryFilter({ agentId }),
    agent.data ? usageExpiresAt(agent.data.usage, agent.dataUpdatedAt) : null,
  );

  if (agent.error)
    return (
      <Card as="div">
        <p className={ui.formError} role="alert">
          {agent.error.data?.code === "not_found"
            ? "There is no agent of yours with this id. Pick one from your agents."
            : agent.error.message}
        </p>
        <Link href="/agents">Back to your agents</Link>
      </Card>
    );
  if (!agent.data) return <Skeleton lines={6} label="the agent" />;
  const { agent: me, usage } = agent.data;

  return (
    <>
      <title>{`${me.displayName ?? me.num} · Agents · Switchboard`}</title>
      <nav aria-label="Breadcrumb" className={ui.breadcrumb}>
        <Link href="/agents">Agents</Link>
        <span aria-hidden="true">/</span>
        <span aria-current="page" className={ui.truncate}>
          {me.displayName ?? me.num}
        </span>
      </nav>
      <div className={ui.pageHead}>
        <div>
          <h1 data-testid="agent-title" className={ui.truncate} title={me.displayName ?? me.num}>
            {me.displayName}
          </h1>
          <p className={`${ui.mono} ${ui.muted}`} data-testid="agent-num">
            {me.num}
          </p>
        </div>
        <Link
          href={`/agents/${agentId}/webhook`}
          className={ui.strongLink}
          data-testid="agent-webhook-link"
        >
          Webhook →
        </Link>
      </div>
      <PauseControl agentId={agentId} paused={me.paused} />
      <ActivityCharts agentId={agentId} />
      <UsageCard usage={usage} />
      <DecisionsCard agentId={agentId} />
      <TokensCard agentId={agentId} />
      <ProfileCard
        agentId={agentId}
        profile={{
          displayName: me.displayName ?? "",
          bio: me.bio ?? "",
          avatarUrl: me.avatarUrl ?? "",
          requestPrivacy: me.requestPrivacy,
          requestedScopes: me.requestedScopes,
        }}
      />
    </>
  );
}
