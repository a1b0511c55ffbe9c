"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { shownError } from "~/components/errors";
import { onFormSubmit } from "~/components/form";
import { FormError } from "~/components/form-error";
import { SecretOnce } from "~/components/secret-once";
import { Button } from "~/components/ui/button";
import { Card, CardHead } from "~/components/ui/card";
import { ConfirmButton } from "~/components/ui/confirm-dialog";
import { EmptyState } from "~/components/ui/empty-state";
import ui from "~/components/ui/layout.module.css";
import { useTRPC } from "~/trpc/client";
import { TestResult } from "./test-result";
import styles from "./webhook.module.css";
import type { WebhookData } from "./webhook-data";
import { HealthBadge, WebhookFacts } from "./webhook-facts";

/**
 * The webhook itself: where events go and how it is doing, and the owner's actions on it (set
 * the URL, send a test event, resume, rotate the secret, remove it). A new secret shows once,
 * above the card.
 */
export function EndpointCard({
  agentId,
  data,
}: {
  agentId: string;
  data: WebhookData | undefined;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [secret, setSecret] = useState<string | null>(null);
  // After a removal the Remove button is gone: focus goes to the URL field, to set one again.
  const urlInput = useRef<HTMLInputElement>(null);
  const [focusUrl, setFocusUrl] = useState(false);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() });
  const withSecret = {
    onSuccess: (answer: { secret: string }) => {
      setSecret(answer.secret);
      return refresh();
    },
  };
  const set = useMutation(trpc.webhooks.set.mutationOptions(withSecret));
  const rotate = useMutation(trpc.webhooks.rotate.mutationOptions(withSecret));
  const resume = useMutation(trpc.webhooks.resume.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(
    trpc.webhooks.remove.mutationOptions({
      onSuccess: async () => {
        setSecret(null);
        await refresh();
        setFocusUrl(true);
      },
    }),
  );
  const test = useMutation(trpc.webhooks.sendTest.mutationOptions({ onSuccess: refresh }));
  const setError = shownError(set.error, ["url"]);
  const error = shownError(rotate.error ?? resume.error ?? remove.error ?? test.error);
  const webhook = data?.webhook ?? null;
  const waiting = data?.waiting ?? { waiting: 0, held: 0 };
  const dead = waiting.waiting;
  useEffect(() => {
    if (!focusUrl || webhook) return;
    urlInput.current?.focus();
    setFocusUrl(false);
  }, [focusUrl, webhook]);

  return (
    <>
      {secret && (
        <SecretOnce
          label="Signing secret"
          value={secret}
          testId="webhook-secret"
          note="Copy it now: it verifies X-Svc-Signature. You won't see it again here."
        />
      )}
      <Card className={ui.stack} aria-labelledby="webhook-heading">
        <CardHead>
          <h2 id="webhook-heading">Endpoint</h2>
          {webhook && <HealthBadge webhook={webhook} />}
        </CardHead>
        {webhook ? (
          <WebhookFacts webhook={webhook} dead={dead} />
        ) : (
          data && (
            <EmptyState data-testid="webhook-none">
              No webhook yet: events wait for long-poll or the stream.
            </EmptyState>
          )
        )}
        {webhook && webhook.state !== "active" && waiting.waiting > 0 && (
          <p className={ui.hint} data-testid="webhook-waiting">
            {waiting.waiting === 1 ? "1 event waiting" : `${waiting.waiting} events waiting`}
            {waiting.held > 0 ? ` (${waiting.held} committed while it was off)` : ""}. Resume and
            retry sends them in order. Events older than the event log's retention are no longer
            sent.
          </p>
        )}
        <form
          className={styles.urlForm}
          onSubmit={onFormSubmit((form) =>
            set.mutate({ agentId, url: String(form.get("url") ?? "") }),
          )}
        >
          <label htmlFor="webhook-url">{webhook ? "Change the URL" : "URL"}</label>
          <div className={styles.urlFormRow}>
            <input
              ref={urlInput}
              id="webhook-url"
              name="url"
              className={ui.mono}
              inputMode="url"
              autoComplete="off"
              placeholder="https://example.com/hooks/switchboard"
              defaultValue={webhook?.url ?? ""}
              key={webhook?.url}
              data-testid="webhook-url-input"
              {...(setError && {
                "aria-invalid": true,
                "aria-describedby": "webhook-url-error",
              })}
            />
            <Button type="submit" disabled={set.isPending} data-testid="webhook-save">
              {set.isPending ? "Saving…" : webhook ? "Save (new secret)" : "Set webhook"}
            </Button>
          </div>
          <p className={ui.hint}>
            https only, on a public host. Saving issues a new signing secret.
          </p>
          {webhook?.state === "disabled" && (
            <p className={ui.hint} data-testid="webhook-stays-off">
              It is turned off: a new URL, yours or the agent's, keeps it off. Resume and retry
              turns it on and sends its failed events again.
            </p>
          )}
        </form>
        {setError && (
          <p
            className={ui.formError}
            role="alert"
            id="webhook-url-error"
            data-testid="webhook-url-error"
          >
            {setError.fields.url ? `The URL ${setError.fields.url}.` : setError.message}
          </p>
        )}
        {webhook && (
          <div className={ui.row}>
            <Button
              disabled={test.isPending || webhook.state !== "active"}
              onClick={() => test.mutate({ agentId })}
              data-testid="webhook-test"
            >
              {test.isPending ? "Sending…" : "Send test event"}
            </Button>
            {webhook.state === "disabled" && (
              <Button
                disabled={resume.isPending}
                onClick={() => resume.mutate({ agentId })}
                data-testid="webhook-resume"
              >
                Resume and retry{dead ? ` (${dead} failed)` : ""}
              </Button>
            )}
            <Button
              variant="secondary"
              disabled={rotate.isPending}
              onClick={() => rotate.mutate({ agentId })}
              data-testid="webhook-rotate"
            >
              Rotate secret
            </Button>
            <ConfirmButton
              variant="danger"
              disabled={remove.isPending}
              title="Remove the webhook?"
              body="Events stop going to this URL and its delivery log is deleted. They stay available by long-poll and the stream."
              confirmLabel="Remove webhook"
              onConfirm={() => remove.mutate({ agentId })}
              testId="webhook-delete"
            >
              Remove
            </ConfirmButton>
          </div>
        )}
        <FormError message={error?.message} />
        {test.data && <TestResult result={test.data} />}
      </Card>
    </>
  );
}
