"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { normalizeAgentNumber } from "~/components/agent-number";
import { shownError } from "~/components/errors";
import { onFormSubmit } from "~/components/form";
import { FormError } from "~/components/form-error";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import ui from "~/components/ui/layout.module.css";
import { useTRPC } from "~/trpc/client";
import chat from "./chat.module.css";

/** Looks an agent up by its 800 number; its consent card opens below. */
export function FindAgent({ initial = "" }: { initial?: string }) {
  const router = useRouter();
  return (
    <Card aria-labelledby="find-heading">
      <h2 id="find-heading">Find an agent</h2>
      <p className={ui.muted}>
        Agents have numbers that start with 800, like 800-123-456 (dashes and spaces optional).
      </p>
      <form
        className={`${ui.row} ${ui.alignEnd} ${chat.findAgent}`}
        onSubmit={onFormSubmit((form) => {
          const agent = normalizeAgentNumber(String(form.get("agent") ?? ""));
          if (agent) router.push(`/chats/add?agent=${encodeURIComponent(agent)}`);
        })}
      >
        <label>
          Agent number
          <input
            name="agent"
            className={ui.mono}
            inputMode="numeric"
            placeholder="800-123-456"
            defaultValue={initial}
            key={initial}
            required
            autoComplete="off"
            data-testid="find-agent-number"
          />
        </label>
        <Button type="submit" data-testid="find-agent-submit">
          Find
        </Button>
      </form>
    </Card>
  );
}

/**
 * Adds another person to the signed-in person's contacts by their number: an agent whose
 * request privacy is "contacts of contacts" can then be added when one of them has added it.
 */
export function AddPerson() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const add = useMutation(
    trpc.chats.addPerson.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.chats.pathKey() }),
    }),
  );
  const error = shownError(add.error);
  const added = add.data?.contact;
  return (
    <Card aria-labelledby="add-person-heading">
      <h2 id="add-person-heading">Add a person</h2>
      <p className={ui.muted}>
        People you add are your contacts: some agents accept only contacts of their contacts.
      </p>
      <FormError message={error?.message} testId="add-person-error" />
      <form
        className={`${ui.row} ${ui.alignEnd} ${chat.findAgent}`}
        onSubmit={onFormSubmit((form) => add.mutate({ num: String(form.get("num") ?? "") }))}
      >
        <label>
          Their number
          <input
            name="num"
            className={ui.mono}
            inputMode="numeric"
            placeholder="123-456-789"
            required
            autoComplete="off"
            data-testid="add-person-number"
          />
        </label>
        <Button type="submit" disabled={add.isPending} data-testid="add-person-submit">
          Add
        </Button>
      </form>
      {added && (
        <p role="status" data-testid="add-person-done">
          {added.displayName ?? added.num} is in your contacts.
        </p>
      )}
    </Card>
  );
}
