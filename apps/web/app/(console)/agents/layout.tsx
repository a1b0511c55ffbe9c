import type { ReactNode } from "react";
import { WebhookBanner } from "./_components/webhook-banner";

/** Every Agents page (the list, an agent, its webhook, service status): webhook warnings first. */
export default function AgentsLayout({ children }: { children: ReactNode }) {
  return (
    <>
      <WebhookBanner />
      {children}
    </>
  );
}
