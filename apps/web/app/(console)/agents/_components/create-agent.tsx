"use client";

import type { RequestPrivacy } from "@switchboard/contract";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { shownError } from "~/components/errors";
import { FieldError, invalidProps } from "~/components/field-error";
import { onFormSubmit } from "~/components/form";
import { FormError } from "~/components/form-error";
import { PrivacySelect } from "~/components/privacy-select";
import { ScopePicker, scopesFrom } from "~/components/scope-picker";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import ui from "~/components/ui/layout.module.css";
import { useTRPC } from "~/trpc/client";

const createFields = ["displayName", "requestedScopes", "requestPrivacy"] as const;

/** Creating an agent: its name, the scopes it asks for and who may add it. */
/** The create form's name field: the empty list's "Create an agent" puts the cursor there. */
export const agentNameField = "create-agent-name";

export function CreateAgent() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const create = useMutation(
    trpc.agents.create.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries(trpc.agents.list.queryFilter()),
    }),
  );
  const error = shownError(create.error, createFields);

  return (
    <Card aria-labelledby="create-heading">
      <h2 id="create-heading">Create an agent</h2>
      <form
        className={ui.stack}
        onSubmit={onFormSubmit((form, element) =>
          create.mutate(
            {
              displayName: String(form.get("displayName") ?? ""),
              requestedScopes: scopesFrom(form),
              requestPrivacy: String(form.get("requestPrivacy")) as RequestPrivacy,
            },
            { onSuccess: () => element.reset() },
          ),
        )}
      >
        <FormError message={error?.message} />
        <label>
          Name
          <input
            id={agentNameField}
            name="displayName"
            required
            maxLength={50}
            autoComplete="off"
            data-testid="agent-name"
            {...invalidProps("agent-name-error", error?.fields.displayName)}
          />
          <FieldError id="agent-name-error" message={error?.fields.displayName} />
        </label>
        <ScopePicker
          legend="Scopes it asks for on the consent card"
          selected={["messages:read", "messages:write"]}
          testId="agent-scopes"
        />
        <FieldError id="agent-scopes-error" message={error?.fields.requestedScopes} />
        <PrivacySelect defaultValue="everyone" />
        <div className={ui.row}>
          <Button type="submit" disabled={create.isPending} data-testid="agent-create">
            {create.isPending ? "Creating…" : "Create agent"}
          </Button>
          {create.data && (
            <p className={ui.success} role="status" data-testid="agent-created">
              Created <Link href={`/agents/${create.data.id}`}>{create.data.displayName}</Link> with
              number <span className={ui.mono}>{create.data.num}</span>.
            </p>
          )}
        </div>
      </form>
    </Card>
  );
}
