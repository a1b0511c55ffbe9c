import { firstPageOnly, HydrateClient, trpc } from "~/trpc/server";
import { ThreadView } from "../_components/thread-view";

/** One email thread, rendered with its newest emails read on the server. */
export default async function EmailThreadPage({
  params,
}: {
  params: Promise<{ threadId: string }>;
}) {
  const { threadId } = await params;
  return (
    <HydrateClient queries={[trpc.inbox.thread.infiniteQueryOptions({ threadId }, firstPageOnly)]}>
      <ThreadView threadId={threadId} />
    </HydrateClient>
  );
}
