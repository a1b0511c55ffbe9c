"use client";

import { createSkills, type PersonConversation, skillScope } from "@switchboard/contract";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { shownError } from "~/components/errors";
import { onFormSubmit } from "~/components/form";
import { FormError } from "~/components/form-error";
import { scopesFrom } from "~/components/scope-picker";
import { useSettingToggle } from "~/components/use-setting-toggle";
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
  const queryClient = useQueryClient();
  // "Saved" shows once the pages have re-read the grant, so the boxes match what is stored.
  const grant = useMutation(
    trpc.chats.setGrant.mutationOptions({ onSuccess: () => queryClient.invalidateQueries() }),
  );
  const saveReplyOnly = useMutation(trpc.chats.setReplyOnly.mutationOptions());
  const replyOnly = useSettingToggle(conversation.initiation === "reply_only", (next) =>
    saveReplyOnly.mutateAsync({ agent, replyOnly: next }),
  );
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
      {conversation.isContact && <AutoExecute conversation={conversation} />}
      <label className="check">
        <input
          type="checkbox"
          checked={replyOnly.checked}
          disabled={replyOnly.busy}
          onChange={(event) => void replyOnly.toggle(event.target.checked)}
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
      <FormError message={error?.message} />
    </div>
  );
}

const createSkillLabels = {
  create_task: "Create tasks",
  create_reminder: "Create reminders",
  create_event: "Create events",
  create_note: "Create notes",
} as const;

/**
 * Create skills the agent may run without a card. Changes, completions and deletions always
 * ask. A skill also needs its write scope granted, or the agent cannot propose it at all.
 */
function AutoExecute({ conversation }: { conversation: PersonConversation }) {
  return (
    <fieldset className="grant" data-testid="auto-execute">
      <legend>Let it act without asking</legend>
      {createSkills.map((skill) => (
        <AutoExecuteSkill key={skill} conversation={conversation} skill={skill} />
      ))}
    </fieldset>
  );
}

function AutoExecuteSkill({
  conversation,
  skill,
}: {
  conversation: PersonConversation;
  skill: (typeof createSkills)[number];
}) {
  const trpc = useTRPC();
  const save = useMutation(trpc.chats.setAutoExecute.mutationOptions());
  const toggle = useSettingToggle(conversation.autoExecuteSkills.includes(skill), (enabled) =>
    save.mutateAsync({ agent: conversation.agent.id, skill, enabled }),
  );
  const error = shownError(toggle.error);
  const granted = conversation.grantedScopes.includes(skillScope(skill));
  return (
    <label className="check">
      <input
        type="checkbox"
        checked={toggle.checked}
        disabled={toggle.busy}
        onChange={(event) => void toggle.toggle(event.target.checked)}
        data-testid={`auto-${skill}`}
      />
      <span>
        {createSkillLabels[skill]}
        {!granted && <span className="hint"> (needs {skillScope(skill)})</span>}
        {error && <span className="field-error"> {error.message}</span>}
      </span>
    </label>
  );
}
