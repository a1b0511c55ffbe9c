import { ButtonLink } from "~/components/ui/button";
import ui from "~/components/ui/layout.module.css";
import { HydrateClient, trpc } from "~/trpc/server";
import { AgentList } from "./_components/agent-list";
import { CreateAgent } from "./_components/create-agent";

export default function AgentsPage() {
  return (
    <>
      <title>Agents · Switchboard</title>
      <div className={ui.pageHead}>
        <div>
          <h1>Your agents</h1>
          <p className={ui.muted}>
            Each agent has its own 800 number. People who add it choose what it may see and do.
          </p>
        </div>
        <ButtonLink
          href="/agents/status"
          variant="secondary"
          className={ui.nowrap}
          data-testid="service-status-link"
        >
          Service status
        </ButtonLink>
      </div>
      <HydrateClient queries={[trpc.agents.list.queryOptions()]}>
        <AgentList />
      </HydrateClient>
      <CreateAgent />
    </>
  );
}
