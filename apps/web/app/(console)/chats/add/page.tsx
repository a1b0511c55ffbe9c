"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { Suspense } from "react";
import { normalizeAgentNumber } from "~/components/agent-number";
import { Icon } from "~/components/icon";
import ui from "~/components/ui/layout.module.css";
import { ConsentCardView } from "../_components/consent-card";
import { AddPerson, FindAgent } from "../_components/find-agent";

function AddAgent() {
  const agent = normalizeAgentNumber(useSearchParams().get("agent") ?? "");
  return (
    <>
      <title>Add an agent · Switchboard</title>
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
      {agent && <ConsentCardView agent={agent} />}
      <AddPerson />
    </>
  );
}

export default function AddAgentPage() {
  return (
    <Suspense>
      <AddAgent />
    </Suspense>
  );
}
