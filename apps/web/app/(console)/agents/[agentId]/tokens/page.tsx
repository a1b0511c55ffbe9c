import { HydrateClient, trpc } from "~/trpc/server";
import { TokensCard } from "../_components/tokens-card";

/** An agent's API tokens for its owner: mint (shown once), list and revoke. */
export default async function AgentTokensPage({
  params,
}: {
  params: Promise<{ agentId: string }>;
}) {
  const { agentId } = await params;
  return (
    <HydrateClient queries={[trpc.tokens.list.queryOptions({ agentId })]}>
      <TokensCard agentId={agentId} />
    </HydrateClient>
  );
}
