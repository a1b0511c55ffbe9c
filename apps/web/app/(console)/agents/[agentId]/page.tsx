import { HydrateClient, trpc } from "~/trpc/server";
import { type PageQuery, urlQueryFrom } from "../_components/url-query";
import { rangeFrom } from "./_components/activity-range";
import { AgentView } from "./_components/agent-view";
import { DECISIONS_PER_PAGE } from "./_components/decision-pages";

/**
 * An agent for its owner: its state, charts (over the URL's range), usage, decisions, tokens and
 * profile, each card read on the server with the same input its client component asks for.
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
    <HydrateClient
      queries={[
        trpc.agents.get.queryOptions({ agentId }),
        trpc.agents.history.queryOptions({ agentId, days }),
        trpc.agents.decisions.queryOptions({
          agentId,
          before: undefined,
          limit: DECISIONS_PER_PAGE,
        }),
        trpc.tokens.list.queryOptions({ agentId }),
      ]}
    >
      <AgentView agentId={agentId} />
    </HydrateClient>
  );
}
