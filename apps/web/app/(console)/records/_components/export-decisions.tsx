"use client";

import type { DecisionCursor, PersonDecision } from "@switchboard/contract";
import { useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "~/components/ui/button";
import ui from "~/components/ui/layout.module.css";
import { useTRPC } from "~/trpc/client";

/**
 * Downloads every decision the person made on cards (who, when, from where, what was proposed
 * and what was approved) as one JSON file, read a bounded page at a time.
 */
export function ExportDecisions() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [state, setState] = useState<"idle" | "busy" | "failed">("idle");
  const run = async () => {
    setState("busy");
    try {
      const decisions: PersonDecision[] = [];
      let before: DecisionCursor | undefined;
      do {
        const page = await queryClient.fetchQuery({
          ...trpc.records.decisions.queryOptions({ before, limit: 200 }),
          staleTime: 0,
        });
        decisions.push(...page.decisions);
        before = page.next ?? undefined;
      } while (before);
      const exportedAt = new Date().toISOString();
      const blob = new Blob([JSON.stringify({ exportedAt, decisions }, null, 2)], {
        type: "application/json",
      });
      const url = URL.createObjectURL(blob);
      const link = document.createElement("a");
      link.href = url;
      link.download = `switchboard-decisions-${exportedAt.slice(0, 10)}.json`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setState("idle");
    } catch {
      setState("failed");
    }
  };
  return (
    <div className={ui.stack}>
      <Button
        variant="secondary"
        onClick={run}
        disabled={state === "busy"}
        data-testid="export-decisions"
      >
        {state === "busy" ? "Exporting…" : "Export my decisions (JSON)"}
      </Button>
      {state === "failed" && (
        <p className={ui.formError} role="alert">
          The export did not finish; try again.
        </p>
      )}
    </div>
  );
}
