"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { use } from "react";
import { useTRPC } from "~/trpc/client";
import { PauseControl } from "./_components/pause-control";
import { ProfileCard } from "./_components/profile-card";
import { TokensCard } from "./_components/tokens-card";
import { UsageCard } from "./_components/usage-card";

export default function AgentPage({ params }: { params: Promise<{ agentId: string }> }) {
  const { agentId } = use(params);
  const trpc = useTRPC();
  // Usage and an automatic pause change without the owner doing anything; keep them current.
  const agent = useQuery(trpc.agents.get.queryOptions({ agentId }, { refetchInterval: 5000 }));

  if (agent.error)
    return (
      <div className="card">
        <p className="form-error" role="alert">
          {agent.error.data?.code === "not_found"
            ? "There is no agent of yours with this id."
            : agent.error.message}
        </p>
        <Link href="/agents">Back to your agents</Link>
      </div>
    );
  if (!agent.data) return <p className="muted">Loading…</p>;
  const { agent: me, usage } = agent.data;

  return (
    <>
      <title>{`${me.displayName ?? me.num} · Switchboard`}</title>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link href="/agents">Agents</Link>
        <span aria-hidden="true">/</span>
        <span aria-current="page">{me.displayName ?? me.num}</span>
      </nav>
      <div className="page-head">
        <div>
          <h1 data-testid="agent-title">{me.displayName}</h1>
          <p className="mono muted" data-testid="agent-num">
            {me.num}
          </p>
        </div>
        <Link
          href={`/agents/${agentId}/webhook`}
          className="strong-link"
          data-testid="agent-webhook-link"
        >
          Webhook →
        </Link>
      </div>
      <PauseControl agentId={agentId} paused={me.paused} />
      <TokensCard agentId={agentId} />
      <ProfileCard
        agentId={agentId}
        profile={{
          displayName: me.displayName ?? "",
          bio: me.bio ?? "",
          avatarUrl: me.avatarUrl ?? "",
          requestPrivacy: me.requestPrivacy,
          requestedScopes: me.requestedScopes,
        }}
      />
      <UsageCard usage={usage} />
    </>
  );
}
