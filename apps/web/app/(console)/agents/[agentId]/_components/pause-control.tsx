"use client";

import { useMutation } from "@tanstack/react-query";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { ConfirmButton } from "~/components/ui/confirm-dialog";
import ui from "~/components/ui/layout.module.css";
import { RelativeTime } from "~/components/ui/time";
import { useTRPC } from "~/trpc/client";
import { useInvalidateAgent } from "./invalidate";
import styles from "./pause-control.module.css";

/** Why the agent is paused, in the owner's words. */
function pauseReason(reason: string): string {
  if (reason.startsWith("ceiling:"))
    return `Paused automatically: it reached its daily ${reason.slice("ceiling:".length)} ceiling.`;
  return "Paused by you.";
}

/** The agent's state, and the one button that changes it. */
export function PauseControl({
  agentId,
  paused,
}: {
  agentId: string;
  paused: { at: string; reason: string } | null;
}) {
  const trpc = useTRPC();
  const invalidate = useInvalidateAgent(agentId);
  const pause = useMutation(trpc.agents.pause.mutationOptions({ onSuccess: invalidate }));
  const resume = useMutation(trpc.agents.resume.mutationOptions({ onSuccess: invalidate }));
  const error = shownError(pause.error ?? resume.error);
  const busy = pause.isPending || resume.isPending;

  return (
    <Card
      className={paused ? `${styles.state} ${styles.paused}` : styles.state}
      aria-labelledby="state-heading"
    >
      <div>
        <h2 id="state-heading">
          Status{" "}
          <Badge tone={paused ? "warn" : "ok"} data-testid="agent-state">
            {paused ? "paused" : "active"}
          </Badge>
        </h2>
        {paused ? (
          <p data-testid="pause-reason">
            {pauseReason(paused.reason)}{" "}
            <span className={ui.muted}>
              Since <RelativeTime iso={paused.at} />. Every API call answers 403{" "}
              <code>agent_paused</code> until you resume; its tokens stay valid.
            </span>
          </p>
        ) : (
          <p className={ui.muted}>
            It can call the API with its tokens. Pausing makes every call answer 403{" "}
            <code>agent_paused</code> until you resume it.
          </p>
        )}
        <FormError message={error?.message} />
      </div>
      {paused ? (
        <Button
          onClick={() => resume.mutate({ agentId })}
          disabled={busy}
          data-testid="agent-resume"
        >
          {resume.isPending ? "Resuming…" : "Resume agent"}
        </Button>
      ) : (
        <ConfirmButton
          variant="danger"
          onConfirm={() => pause.mutate({ agentId })}
          disabled={busy}
          testId="agent-pause"
          title="Pause this agent?"
          body="Every call it makes answers 403 agent_paused until you resume it. Its tokens stay valid."
          confirmLabel="Pause agent"
        >
          {pause.isPending ? "Pausing…" : "Pause agent"}
        </ConfirmButton>
      )}
    </Card>
  );
}
