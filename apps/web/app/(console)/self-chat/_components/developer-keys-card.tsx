"use client";

import { devScopes } from "@switchboard/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSyncExternalStore } from "react";
import { shownError } from "~/components/errors";
import { onFormSubmit } from "~/components/form";
import { FormError } from "~/components/form-error";
import { formatTime } from "~/components/format";
import { SecretOnce } from "~/components/secret-once";
import { useTRPC } from "~/trpc/client";
import type { RouterOutputs } from "~/trpc/router";

type KeyInfo = RouterOutputs["developerKeys"]["list"][number];

const noSubscription = () => () => {};

/** The address this console is served from, so the example works as pasted. */
function useOrigin(): string {
  return useSyncExternalStore(
    noSubscription,
    () => window.location.origin,
    () => "",
  );
}

function KeyState({ info }: { info: KeyInfo }) {
  if (info.revokedAt) return <span className="badge off">revoked</span>;
  if (info.expiresAt && new Date(info.expiresAt) <= new Date())
    return <span className="badge off">expired</span>;
  return <span className="badge ok">active</span>;
}

/** Create (shown once), list and revoke Developer API keys, with a ready-to-run example. */
export function DeveloperKeysCard() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.developerKeys.list.queryOptions());
  const refresh = () => queryClient.invalidateQueries(trpc.developerKeys.list.queryFilter());
  const create = useMutation(trpc.developerKeys.create.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.developerKeys.revoke.mutationOptions({ onSuccess: refresh }));
  const error = shownError(create.error ?? revoke.error);
  const origin = useOrigin();

  return (
    <section className="card stack" aria-labelledby="keys-heading">
      <div>
        <h2 id="keys-heading">Developer keys</h2>
        <p className="muted">
          Your scripts call the Developer API with{" "}
          <code>Authorization: Bearer dev:&lt;key&gt;</code>.
        </p>
      </div>
      <form
        className="row align-end"
        onSubmit={onFormSubmit((form) => {
          const expires = String(form.get("expires") ?? "");
          create.mutate({
            scopes: devScopes.filter((scope) => form.getAll("scope").includes(scope)),
            expiresAt: expires ? new Date(expires).toISOString() : undefined,
          });
        })}
      >
        <fieldset className="inline-fieldset">
          <legend>Scopes</legend>
          {devScopes.map((scope) => (
            <label className="check" key={scope}>
              <input type="checkbox" name="scope" value={scope} defaultChecked />
              <span className="mono">{scope}</span>
            </label>
          ))}
        </fieldset>
        <label>
          <span>
            Expires <span className="hint">optional</span>
          </span>
          <input type="datetime-local" name="expires" className="narrow" />
        </label>
        <button type="submit" disabled={create.isPending} data-testid="devkey-create">
          {create.isPending ? "Creating…" : "Create key"}
        </button>
      </form>
      <FormError message={error?.message} />
      {create.data && (
        <SecretOnce label="Your new developer key" value={create.data.key} testId="devkey-value" />
      )}
      {keys.data?.length === 0 && <p className="empty">No keys yet.</p>}
      {keys.data && keys.data.length > 0 && (
        <table data-testid="devkey-list">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Scopes</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data.map((info) => (
              <tr key={info.id} data-testid="devkey-row">
                <td className="mono">{info.hint}</td>
                <td className="mono">{info.scopes.join(", ") || "none"}</td>
                <td>{formatTime(info.createdAt)}</td>
                <td>{info.expiresAt ? formatTime(info.expiresAt) : "never"}</td>
                <td>
                  <KeyState info={info} />
                </td>
                <td className="actions">
                  {!info.revokedAt && (
                    <button
                      type="button"
                      className="danger small"
                      disabled={revoke.isPending}
                      aria-label={`Revoke key ${info.hint}`}
                      data-testid="devkey-revoke"
                      onClick={() => {
                        if (
                          window.confirm(
                            `Revoke key ${info.hint}? Scripts using it stop working at once.`,
                          )
                        )
                          revoke.mutate({ keyId: info.id });
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
      <div>
        <h3>Post to your self chat</h3>
        <pre
          className="example"
          data-testid="curl-example"
        >{`curl -X POST ${origin}/api/v1/me/messages \\
  -H "Authorization: Bearer dev:<your key>" \\
  -H "Content-Type: application/json" \\
  -d '{"content":"deploy finished"}'`}</pre>
      </div>
    </section>
  );
}
