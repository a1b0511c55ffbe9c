import { HydrateClient, trpc } from "~/trpc/server";
import { type PageQuery, urlQueryFrom } from "../../_components/url-query";
import { logViewFrom } from "./_components/log-view";
import { WebhookView } from "./_components/webhook-view";

/**
 * An agent's webhook for its owner: where events go, whether deliveries work (in words), and its
 * delivery log, filtered and paged as the URL says (read on the server for the URL it came with).
 * Deliveries happen in the worker on their own schedule; each settled attempt wakes this page
 * (`webhook:<agentId>`), so it re-reads then and never polls.
 */
export default async function WebhookPage({
  params,
  searchParams,
}: {
  params: Promise<{ agentId: string }>;
  searchParams: Promise<PageQuery>;
}) {
  const { agentId } = await params;
  const view = logViewFrom(urlQueryFrom(await searchParams));
  return (
    <HydrateClient queries={[trpc.webhooks.get.queryOptions({ agentId, ...view })]}>
      <WebhookView agentId={agentId} />
    </HydrateClient>
  );
}
