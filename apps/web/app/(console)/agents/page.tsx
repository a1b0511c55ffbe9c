import Link from "next/link";
import { HydrateClient, trpc } from "~/trpc/server";
import { AgentList } from "./_components/agent-list";
import { CreateAgent } from "./_components/create-agent";

export default function AgentsPage() {
  return (
    <>
      <title>Agents · Switchboard</title>
      <div className="page-head">
        <div>
          <h1>Your agents</h1>
          <p className="muted">
            Each agent has its own 800 number. People who add it choose what it may see and do.
          </p>
        </div>
        <Link
          href="/agents/status"
          className="button-link secondary nowrap"
          data-testid="service-status-link"
        >
          Service status
        </Link>
      </div>
      <HydrateClient queries={[trpc.agents.list.queryOptions()]}>
        <AgentList />
      </HydrateClient>
      <CreateAgent />
    </>
  );
}
