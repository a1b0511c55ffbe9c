import type { ReactNode } from "react";
import { HydrateClient, trpc } from "~/trpc/server";
import { AgentSections } from "./_components/agent-sections";

/**
 * Every page of one agent for its owner (overview, tokens, webhook, decisions, profile): its name
 * and number, and the tab bar between its sections, read on the server with the agent.
 */
export default async function AgentLayout({
  params,
  children,
}: {
  params: Promise<{ agentId: string }>;
  children: ReactNode;
}) {
  const { agentId } = await params;
  return (
    <HydrateClient queries={[trpc.agents.get.queryOptions({ agentId })]}>
      <AgentSections agentId={agentId}>{children}</AgentSections>
    </HydrateClient>
  );
}
