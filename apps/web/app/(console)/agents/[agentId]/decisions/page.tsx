import { firstPageOnly, HydrateClient, trpc } from "~/trpc/server";
import { DECISIONS_PER_PAGE } from "../_components/decision-pages";
import { DecisionsCard } from "../_components/decisions-card";

/** How people decided an agent's proposals: counts, and the decisions a page at a time. */
export default async function AgentDecisionsPage({
  params,
}: {
  params: Promise<{ agentId: string }>;
}) {
  const { agentId } = await params;
  return (
    <HydrateClient
      queries={[
        trpc.agents.decisions.infiniteQueryOptions(
          { agentId, limit: DECISIONS_PER_PAGE },
          firstPageOnly,
        ),
      ]}
    >
      <DecisionsCard agentId={agentId} />
    </HydrateClient>
  );
}
