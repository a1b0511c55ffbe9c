import Link from "next/link";
import ui from "~/components/ui/layout.module.css";
import { HydrateClient, trpc } from "~/trpc/server";
import { ServiceStatus } from "./_components/service-status";

/**
 * The service as an agent owner sees it. The owner's webhooks re-read when one of them changes
 * (a wake-up, `webhook:<agentId>`); readiness and the queue are the instance's, which no wake-up
 * of the owner's announces, so the page says when it checked them and checks again on request
 * (and when the tab comes back into focus).
 */
export default function StatusPage() {
  return (
    <>
      <title>Service status · Agents · Switchboard</title>
      <nav className={ui.breadcrumb} aria-label="Breadcrumb">
        <Link href="/agents">Agents</Link> <span aria-hidden="true">/</span> Service status
      </nav>
      <div className={ui.pageHead}>
        <div>
          <h1>Service status</h1>
          <p className={ui.muted}>
            Whether Switchboard is ready to carry your agents' traffic, how far behind its work
            queue is, and which of your webhooks need attention.
          </p>
        </div>
      </div>
      <HydrateClient queries={[trpc.instance.status.queryOptions()]}>
        <ServiceStatus />
      </HydrateClient>
    </>
  );
}
