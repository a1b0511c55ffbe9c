"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { shownError } from "~/components/errors";
import { onFormSubmit } from "~/components/form";
import { FormError } from "~/components/form-error";
import { scopesFrom } from "~/components/scope-picker";
import { Avatar } from "~/components/ui/avatar";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import ui from "~/components/ui/layout.module.css";
import { Skeleton } from "~/components/ui/skeleton";
import { useTRPC } from "~/trpc/client";
import chat from "./chat.module.css";
import { GrantPicker } from "./grant-picker";

/**
 * An agent's consent card: who it is and who made it, what it asks to see and do (each in a
 * sentence), and the grant the person chooses (exactly what it asks for is checked to start;
 * unchecking narrows it). Adding opens the chat.
 */
export function ConsentCardView({ agent }: { agent: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const card = useQuery(trpc.chats.consentCard.queryOptions({ agent }));
  const add = useMutation(
    trpc.chats.add.mutationOptions({
      onSuccess: async ({ conversationId }) => {
        await queryClient.invalidateQueries({ queryKey: trpc.chats.pathKey() });
        router.push(`/chats/${conversationId}`);
      },
    }),
  );
  const error = shownError(add.error);

  if (card.isPending) return <Skeleton lines={4} label={`agent ${agent}`} />;
  if (card.error)
    return (
      <p className={ui.formError} role="alert" data-testid="consent-error">
        {card.error.data?.code === "not_found"
          ? `No agent has the number ${agent}. Check the number and try again.`
          : card.error.message}
      </p>
    );
  const {
    agent: who,
    owner,
    requestedScopes,
    mayAdd,
    refusal,
    isContact,
    conversationId,
  } = card.data;
  return (
    <Card aria-labelledby="consent-heading" data-testid="consent-card">
      <div className={chat.consentWho}>
        <Avatar agent>{(who.displayName ?? "A").charAt(0).toUpperCase()}</Avatar>
        <div>
          <h2 id="consent-heading" data-testid="consent-agent-name">
            {who.displayName ?? who.num}
          </h2>
          <p className={ui.muted}>
            <span className={ui.mono}>{who.num}</span>
            <span data-testid="consent-owner">
              {" · "}
              {owner?.displayName
                ? `Made by ${owner.displayName}`
                : owner
                  ? "Its maker gave no name"
                  : "Its maker's account is gone"}
            </span>
          </p>
          {who.bio && <p>{who.bio}</p>}
        </div>
      </div>
      {isContact ? (
        <p data-testid="consent-already">
          Already in your contacts.{" "}
          {conversationId && <Link href={`/chats/${conversationId}`}>Open the chat</Link>}
        </p>
      ) : !mayAdd ? (
        <p className={ui.formError} data-testid="consent-refusal">
          {refusal}
        </p>
      ) : (
        <form
          className={ui.stack}
          onSubmit={onFormSubmit((form) => add.mutate({ agent: who.id, scopes: scopesFrom(form) }))}
        >
          <GrantPicker requested={requestedScopes} granted={requestedScopes} />
          <p className={ui.hint}>
            You can change what it may do, make it reply-only, or block it from the chat at any
            time.
          </p>
          <FormError message={error?.message} />
          <div className={ui.row}>
            <Button type="submit" disabled={add.isPending} data-testid="consent-add">
              {add.isPending ? "Adding…" : "Add to contacts"}
            </Button>
          </div>
        </form>
      )}
    </Card>
  );
}
