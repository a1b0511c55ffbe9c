import { HydrateClient, trpc } from "~/trpc/server";
import { type PageQuery, urlQueryFrom } from "../_components/url-query";
import { rangeFrom } from "./_components/activity-range";
import { AgentOverview } from "./_components/agent-overview";

/**
 * An agent's overview for its owner: its state, charts (over the URL's range) and usage, read on
 * the server with the same input its client components ask for. Its other sections (tokens,
 * webhook, decisions, profile) are pages of their own beside this one.
 */
export default async function AgentPage({
  params,
  searchParams,
}: {
  params: Promise<{ agentId: string }>;
  searchParams: Promise<PageQuery>;
}) {
  const { agentId } = await params;
  const days = rangeFrom(urlQueryFrom(await searchParams));
  return (
    <HydrateClient queries={[trpc.agents.history.queryOptions({ agentId, days })]}>
      <AgentOverview agentId={agentId} />
    </HydrateClient>
  );
}
