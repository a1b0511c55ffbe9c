import ui from "~/components/ui/layout.module.css";
import { HydrateClient, pageReadAt, trpc } from "~/trpc/server";
import { WaitingList } from "./_components/waiting-list";

/**
 * Waiting for you: every card an agent asked the person to decide, across their chats, the one
 * expiring first at the top, each decidable here. The list is read on the server; cards decided
 * after this page was opened stay in it showing how they ended (`since`).
 */
export default function WaitingPage() {
  const since = pageReadAt();
  return (
    <>
      <title>Waiting for you · Switchboard</title>
      <div className={ui.pageHead}>
        <div>
          <h1>Waiting for you</h1>
          <p className={ui.muted}>
            What your agents asked you to decide, from all your chats, the one that expires first at
            the top. Nothing happens until you approve it; a card nobody decides expires, and the
            agent hears that it did.
          </p>
        </div>
      </div>
      <HydrateClient queries={[trpc.chats.waiting.queryOptions({ since })]}>
        <WaitingList since={since} />
      </HydrateClient>
    </>
  );
}
