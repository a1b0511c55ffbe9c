"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "~/trpc/client";
import styles from "./webhook-banner.module.css";

/**
 * On every Agents page: a banner for each of the owner's agents whose webhook is turned off, or
 * has failed half the times in a row that turn it off (the owner was emailed at that point too).
 */
export function WebhookBanner() {
  const trpc = useTRPC();
  // Kept current by the owner's wake-ups (`webhook:<agentId>`), not a timer.
  const alerts = useQuery(trpc.webhooks.alerts.queryOptions());
  if (!alerts.data?.length) return null;
  return (
    <div className={styles.banners} role="status" data-testid="webhook-banner">
      {alerts.data.map((alert) => {
        const name = alert.displayName ?? alert.agentId;
        return (
          <p
            key={alert.agentId}
            className={alert.state === "active" ? styles.warn : styles.bad}
            data-testid="webhook-banner-item"
            data-state={alert.state}
          >
            {alert.state === "active"
              ? `${name}'s webhook is failing: ${alert.consecutiveFailures} failures in a row (it is turned off after ${alert.disableAfter}).`
              : `${name}'s webhook is turned off; its events are waiting.`}{" "}
            <Link href={`/agents/${alert.agentId}/webhook`}>
              {alert.state === "active" ? "See its deliveries" : "Resume it"}
            </Link>
          </p>
        );
      })}
    </div>
  );
}
