"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { CredentialTable } from "~/components/credential-table";
import { shownError } from "~/components/errors";
import { onFormSubmit } from "~/components/form";
import { SecretOnce } from "~/components/secret-once";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import ui from "~/components/ui/layout.module.css";
import { useTRPC } from "~/trpc/client";

/** Mint (shown once), list and revoke the agent's API tokens. */
export function TokensCard({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.tokens.list.queryOptions({ agentId }));
  const refresh = () => queryClient.invalidateQueries(trpc.tokens.list.queryFilter({ agentId }));
  const mint = useMutation(trpc.tokens.mint.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.tokens.revoke.mutationOptions({ onSuccess: refresh }));
  const error = shownError(mint.error ?? revoke.error, ["expiresAt", "name"]);

  return (
    <Card className={ui.stack} aria-labelledby="tokens-heading">
      <div>
        <h2 id="tokens-heading">API tokens</h2>
        <p className={ui.muted}>
          The agent calls the Agent API with <code>Authorization: Bearer agent:&lt;token&gt;</code>.
        </p>
      </div>
      <form
        className={`${ui.row} ${ui.alignEnd}`}
        onSubmit={onFormSubmit((form) => {
          const expires = String(form.get("expires") ?? "");
          mint.mutate({
            agentId,
            name: String(form.get("name") ?? "").trim() || undefined,
            expiresAt: expires ? new Date(expires).toISOString() : undefined,
          });
        })}
      >
        <label>
          <span>
            Name <span className={ui.hint}>optional; where it is used, e.g. “prod server”</span>
          </span>
          <input
            name="name"
            maxLength={64}
            className={ui.narrow}
            data-testid="token-name"
            {...(error?.fields.name && { "aria-invalid": true })}
          />
        </label>
        <label>
          <span>
            Expires{" "}
            <span className={ui.hint}>optional; leave empty for a token that never expires</span>
          </span>
          <input
            type="datetime-local"
            name="expires"
            className={ui.narrow}
            data-testid="token-expires"
            {...(error?.fields.expiresAt && { "aria-invalid": true })}
          />
        </label>
        <Button type="submit" disabled={mint.isPending} data-testid="token-mint">
          {mint.isPending ? "Minting…" : "Mint token"}
        </Button>
      </form>
      {error && (
        <p className={ui.formError} role="alert">
          {error.fields.expiresAt
            ? `Expiry ${error.fields.expiresAt}`
            : error.fields.name
              ? `Name ${error.fields.name}`
              : error.message}
        </p>
      )}
      {mint.data && (
        <SecretOnce label="Your new token" value={mint.data.token} testId="token-value" />
      )}
      <CredentialTable
        items={tokens.data}
        noun="token"
        testId="token"
        revokeWarning="Calls using it fail at once; this cannot be undone."
        revoking={revoke.isPending}
        onRevoke={(token) => revoke.mutate({ agentId, tokenId: token.id })}
      />
    </Card>
  );
}
