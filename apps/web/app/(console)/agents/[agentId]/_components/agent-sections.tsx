"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname } from "next/navigation";
import type { ReactNode } from "react";
import { Card } from "~/components/ui/card";
import ui from "~/components/ui/layout.module.css";
import { Skeleton } from "~/components/ui/skeleton";
import { useTRPC } from "~/trpc/client";
import styles from "./agent-sections.module.css";
import { agentSections, sectionOfPath, sectionTitle } from "./sections";

/**
 * One agent's pages for its owner: the tab's title, a breadcrumb, the agent's name and number,
 * and a tab bar of links between its sections (the current one `aria-current="page"`), above the
 * section itself. An agent that is not the person's shows why instead of any section.
 */
export function AgentSections({ agentId, children }: { agentId: string; children: ReactNode }) {
  const trpc = useTRPC();
  const agent = useQuery(trpc.agents.get.queryOptions({ agentId }));
  const section = sectionOfPath(usePathname(), agentId);

  if (agent.error)
    return (
      <Card as="div">
        <p className={ui.formError} role="alert">
          {agent.error.data?.code === "not_found"
            ? "There is no agent of yours with this id. Pick one from your agents."
            : agent.error.message}
        </p>
        <Link href="/agents">Back to your agents</Link>
      </Card>
    );
  if (!agent.data) return <Skeleton lines={6} label="the agent" />;
  const { agent: me } = agent.data;
  const name = me.displayName ?? me.num;
  const base = `/agents/${agentId}`;

  return (
    <>
      <title>{sectionTitle(section, name)}</title>
      <nav aria-label="Breadcrumb" className={ui.breadcrumb}>
        <Link href="/agents">Agents</Link>
        <span aria-hidden="true">/</span>
        {section?.slug === "" ? (
          <span aria-current="page" className={ui.truncate} data-testid="breadcrumb-agent">
            {name}
          </span>
        ) : (
          <Link href={base} className={ui.truncate} data-testid="breadcrumb-agent">
            {name}
          </Link>
        )}
      </nav>
      <div className={ui.pageHead}>
        <div>
          <h1 data-testid="agent-title" className={ui.truncate} title={name}>
            {me.displayName}
          </h1>
          <p className={`${ui.mono} ${ui.muted}`} data-testid="agent-num">
            {me.num}
          </p>
        </div>
      </div>
      <nav aria-label={`${name}: sections`} data-testid="agent-sections">
        <ul className={styles.tabs}>
          {agentSections.map(({ slug, label }) => (
            <li key={slug}>
              <Link
                href={slug ? `${base}/${slug}` : base}
                aria-current={section?.slug === slug ? "page" : undefined}
                data-testid={`agent-tab-${slug || "overview"}`}
              >
                {label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {children}
    </>
  );
}
