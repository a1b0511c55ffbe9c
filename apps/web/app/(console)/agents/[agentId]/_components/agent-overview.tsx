"use client";

import { useQuery } from "@tanstack/react-query";
import { useRereadAt } from "~/components/live-updates";
import { useTRPC } from "~/trpc/client";
import { ActivityCharts } from "./activity-charts";
import { PauseControl } from "./pause-control";
import { UsageCard, usageExpiresAt } from "./usage-card";

/** The agent's overview for its owner: its state (and pause), its charts and today's usage. */
export function AgentOverview({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  // Usage and an automatic pause change without the owner doing anything: each wakes this page
  // (`activity:`, `agent:`). This minute's rates and today's counts expire with time; re-read then.
  const agent = useQuery(trpc.agents.get.queryOptions({ agentId }));
  useRereadAt(
    trpc.agents.get.queryFilter({ agentId }),
    agent.data ? usageExpiresAt(agent.data.usage, agent.dataUpdatedAt) : null,
  );
  // The layout shows the agent (or why not) before any section renders.
  if (!agent.data) return null;
  return (
    <>
      <PauseControl agentId={agentId} paused={agent.data.agent.paused} />
      <ActivityCharts agentId={agentId} />
      <UsageCard usage={agent.data.usage} />
    </>
  );
}
