"use client";

import { devScopes } from "@switchboard/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useSyncExternalStore } from "react";
import { CodeBlock } from "~/components/code-block";
import { CredentialTable } from "~/components/credential-table";
import { shownError } from "~/components/errors";
import { onFormSubmit } from "~/components/form";
import { FormError } from "~/components/form-error";
import { SecretOnce } from "~/components/secret-once";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import ui from "~/components/ui/layout.module.css";
import { useTRPC } from "~/trpc/client";
import styles from "../self-chat.module.css";

const noSubscription = () => () => {};

/** The address this console is served from, so the example works as pasted. */
function useOrigin(): string {
  return useSyncExternalStore(
    noSubscription,
    () => window.location.origin,
    () => "",
  );
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
    <Card className={ui.stack} aria-labelledby="keys-heading">
      <div>
        <h2 id="keys-heading">Developer keys</h2>
        <p className={ui.muted}>
          Your scripts call the Developer API with{" "}
          <code>Authorization: Bearer dev:&lt;key&gt;</code>.
        </p>
      </div>
      <form
        className={`${ui.row} ${ui.alignEnd}`}
        onSubmit={onFormSubmit((form) => {
          const expires = String(form.get("expires") ?? "");
          create.mutate({
            name: String(form.get("name") ?? "").trim() || undefined,
            scopes: devScopes.filter((scope) => form.getAll("scope").includes(scope)),
            expiresAt: expires ? new Date(expires).toISOString() : undefined,
          });
        })}
      >
        <fieldset className={styles.scopes}>
          <legend>Scopes</legend>
          {devScopes.map((scope) => (
            <label className={ui.check} key={scope}>
              <input type="checkbox" name="scope" value={scope} defaultChecked />
              <span className={ui.mono}>{scope}</span>
            </label>
          ))}
        </fieldset>
        <label>
          <span>
            Name <span className={ui.hint}>optional</span>
          </span>
          <input name="name" maxLength={64} className={ui.narrow} data-testid="devkey-name" />
        </label>
        <label>
          <span>
            Expires <span className={ui.hint}>optional</span>
          </span>
          <input type="datetime-local" name="expires" className={ui.narrow} />
        </label>
        <Button type="submit" disabled={create.isPending} data-testid="devkey-create">
          {create.isPending ? "Creating…" : "Create key"}
        </Button>
      </form>
      <FormError message={error?.message} />
      {create.data && (
        <SecretOnce label="Your new developer key" value={create.data.key} testId="devkey-value" />
      )}
      <CredentialTable
        items={keys.data}
        noun="key"
        testId="devkey"
        revokeWarning="Scripts using it stop working at once."
        revoking={revoke.isPending}
        onRevoke={(info) => revoke.mutate({ keyId: info.id })}
        extra={{ header: "Scopes", cell: (info) => info.scopes.join(", ") || "none" }}
      />
      <div className={styles.exampleBox}>
        <h3>Post to your self chat</h3>
        <CodeBlock
          className={styles.example}
          testId="curl-example"
        >{`curl -X POST ${origin}/api/v1/me/messages \\
  -H "Authorization: Bearer dev:<your key>" \\
  -H "Content-Type: application/json" \\
  -d '{"content":"deploy finished"}'`}</CodeBlock>
      </div>
    </Card>
  );
}
