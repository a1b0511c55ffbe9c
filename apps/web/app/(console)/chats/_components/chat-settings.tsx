"use client";

import type { PersonConversation } from "@switchboard/contract";
import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { shownError } from "~/components/errors";
import { onFormSubmit } from "~/components/form";
import { scopesFrom } from "~/components/scope-picker";
import { useTRPC } from "~/trpc/client";
import { GrantPicker } from "./grant-picker";

/**
 * The person's settings for this agent: what it may do (its grant), whether it may write first
 * or only reply, block, and removing it from contacts. Each change applies at once to every
 * API call the agent makes; the chat view refreshes live.
 */
export function ChatSettings({ conversation }: { conversation: PersonConversation }) {
  const trpc = useTRPC();
  const router = useRouter();
  const agent = conversation.agent.id;
  const grant = useMutation(trpc.chats.setGrant.mutationOptions());
  const replyOnly = useMutation(trpc.chats.setReplyOnly.mutationOptions());
  const blocked = useMutation(trpc.chats.setBlocked.mutationOptions());
  const remove = useMutation(trpc.chats.remove.mutationOptions());
  const error = shownError(grant.error ?? replyOnly.error ?? blocked.error ?? remove.error);

  return (
    <div className="chat-settings" data-testid="chat-settings">
      {conversation.isContact && (
        <form
          className="stack"
          onSubmit={onFormSubmit((form) => grant.mutate({ agent, scopes: scopesFrom(form) }))}
        >
          <GrantPicker
            key={conversation.grantedScopes.join()}
            requested={conversation.requestedScopes}
            granted={conversation.grantedScopes}
          />
          <div className="row">
            <button
              type="submit"
              className="secondary small"
              disabled={grant.isPending}
              data-testid="grant-save"
            >
              Save what it may do
            </button>
            {grant.isSuccess && !grant.isPending && (
              <span className="success" data-testid="grant-saved">
                Saved
              </span>
            )}
          </div>
        </form>
      )}
      <label className="check">
        <input
          type="checkbox"
          // Shows the change at once; the live refresh then confirms it.
          checked={
            replyOnly.isPending
              ? replyOnly.variables.replyOnly
              : conversation.initiation === "reply_only"
          }
          disabled={replyOnly.isPending}
          onChange={(event) => replyOnly.mutate({ agent, replyOnly: event.target.checked })}
          data-testid="setting-reply-only"
        />
        <span>Reply-only: it may write only within 24 hours of your last message</span>
      </label>
      <div className="row">
        <button
          type="button"
          className={conversation.blocked ? "secondary small" : "danger small"}
          disabled={blocked.isPending}
          onClick={() => blocked.mutate({ agent, blocked: !conversation.blocked })}
          data-testid="setting-block"
        >
          {conversation.blocked ? "Unblock" : "Block"}
        </button>
        {conversation.isContact && (
          <button
            type="button"
            className="danger small"
            disabled={remove.isPending}
            onClick={() => {
              if (window.confirm("Remove this agent? It loses all access; the chat stays."))
                remove.mutate({ agent }, { onSuccess: () => router.refresh() });
            }}
            data-testid="setting-remove"
          >
            Remove from contacts
          </button>
        )}
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error.message}
        </p>
      )}
    </div>
  );
}
