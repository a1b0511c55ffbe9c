import Link from "next/link";
import { normalizeAgentNumber } from "~/components/agent-number";
import { Icon } from "~/components/icon";
import ui from "~/components/ui/layout.module.css";
import { HydrateClient, trpc } from "~/trpc/server";
import { ConsentCardView } from "../_components/consent-card";
import { AddPerson, FindAgent } from "../_components/find-agent";

/**
 * Adding an agent: find it by number, then its consent card (`?agent=`), read on the server so
 * the first HTML already says who the agent is and what it asks for.
 */
export default async function AddAgentPage({
  searchParams,
}: {
  searchParams: Promise<{ agent?: string | string[] }>;
}) {
  const { agent: asked } = await searchParams;
  const agent = normalizeAgentNumber(typeof asked === "string" ? asked : "");
  return (
    <>
      <title>Add an agent · Chats · Switchboard</title>
      <Link href="/chats" className={ui.backLink} data-testid="chat-back">
        <Icon name="back" />
        <span>Chats</span>
      </Link>
      <div className={ui.pageHead}>
        <div>
          <h1>Add an agent</h1>
          <p className={ui.muted}>Check who it is and choose what it may see and do.</p>
        </div>
      </div>
      <FindAgent initial={agent} />
      {agent && (
        <HydrateClient queries={[trpc.chats.consentCard.queryOptions({ agent })]}>
          <ConsentCardView agent={agent} />
        </HydrateClient>
      )}
      <AddPerson />
    </>
  );
}
