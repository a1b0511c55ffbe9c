"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { shownError } from "~/components/errors";
import { onFormSubmit } from "~/components/form";
import { formatTime } from "~/components/format";
import { SecretOnce } from "~/components/secret-once";
import { useTRPC } from "~/trpc/client";
import type { RouterOutputs } from "~/trpc/router";

type TokenInfo = RouterOutputs["tokens"]["list"][number];

function TokenState({ token }: { token: TokenInfo }) {
  if (token.revokedAt) return <span className="badge off">revoked</span>;
  if (token.expiresAt && new Date(token.expiresAt) <= new Date())
    return <span className="badge off">expired</span>;
  return <span className="badge ok">active</span>;
}

/** Mint (shown once), list and revoke the agent's API tokens. */
export function TokensCard({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.tokens.list.queryOptions({ agentId }));
  const refresh = () => queryClient.invalidateQueries(trpc.tokens.list.queryFilter({ agentId }));
  const mint = useMutation(trpc.tokens.mint.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.tokens.revoke.mutationOptions({ onSuccess: refresh }));
  const error = shownError(mint.error ?? revoke.error, ["expiresAt"]);

  return (
    <section className="card stack" aria-labelledby="tokens-heading">
      <div>
        <h2 id="tokens-heading">API tokens</h2>
        <p className="muted">
          The agent calls the Agent API with <code>Authorization: Bearer agent:&lt;token&gt;</code>.
        </p>
      </div>
      <form
        className="row align-end"
        onSubmit={onFormSubmit((form) => {
          const expires = String(form.get("expires") ?? "");
          mint.mutate({
            agentId,
            expiresAt: expires ? new Date(expires).toISOString() : undefined,
          });
        })}
      >
        <label>
          <span>
            Expires{" "}
            <span className="hint">optional; leave empty for a token that never expires</span>
          </span>
          <input
            type="datetime-local"
            name="expires"
            className="narrow"
            data-testid="token-expires"
            {...(error?.fields.expiresAt && { "aria-invalid": true })}
          />
        </label>
        <button type="submit" disabled={mint.isPending} data-testid="token-mint">
          {mint.isPending ? "Minting…" : "Mint token"}
        </button>
      </form>
      {error && (
        <p className="form-error" role="alert">
          {error.fields.expiresAt ? `Expiry ${error.fields.expiresAt}` : error.message}
        </p>
      )}
      {mint.data && (
        <SecretOnce label="Your new token" value={mint.data.token} testId="token-value" />
      )}
      {tokens.data?.length === 0 && <p className="empty">No tokens yet.</p>}
      {tokens.data && tokens.data.length > 0 && (
        <table data-testid="token-list">
          <thead>
            <tr>
              <th scope="col">Token</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens.data.map((token) => (
              <tr key={token.id} data-testid="token-row">
                <td className="mono">{token.hint}</td>
                <td>{formatTime(token.createdAt)}</td>
                <td>{token.expiresAt ? formatTime(token.expiresAt) : "never"}</td>
                <td>
                  <TokenState token={token} />
                </td>
                <td className="actions">
                  {!token.revokedAt && (
                    <button
                      type="button"
                      className="danger small"
                      disabled={revoke.isPending}
                      aria-label={`Revoke token ${token.hint}`}
                      data-testid="token-revoke"
                      onClick={() => {
                        if (
                          window.confirm(
                            `Revoke token ${token.hint}? Calls using it fail at once; this cannot be undone.`,
                          )
                        )
                          revoke.mutate({ agentId, tokenId: token.id });
                      }}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
