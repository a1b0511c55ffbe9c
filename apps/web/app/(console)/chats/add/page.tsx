"use client";

import { useSearchParams } from "next/navigation";
import { Suspense } from "react";
import { ConsentCardView } from "../_components/consent-card";
import { FindAgent } from "../_components/find-agent";

function AddAgent() {
  const agent = useSearchParams().get("agent")?.trim() ?? "";
  return (
    <>
      <title>Add an agent · Switchboard</title>
      <div className="page-head">
        <div>
          <h1>Add an agent</h1>
          <p className="muted">Check who it is and choose what it may see and do.</p>
        </div>
      </div>
      <FindAgent initial={agent} />
      {agent && <ConsentCardView agent={agent} />}
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
