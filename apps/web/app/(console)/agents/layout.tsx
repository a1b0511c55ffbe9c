import type { ReactNode } from "react";
import { HydrateClient, trpc } from "~/trpc/server";
import { WebhookBanner } from "./_components/webhook-banner";

/** Every Agents page (the list, an agent, its webhook, service status): webhook warnings first. */
export default function AgentsLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <HydrateClient queries={[trpc.webhooks.alerts.queryOptions()]}>
        <WebhookBanner />
      </HydrateClient>
      {children}
    </>
  );
}
