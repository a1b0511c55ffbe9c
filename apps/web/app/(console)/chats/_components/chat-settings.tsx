"use client";

import {
  type AgentScope,
  createSkills,
  inConsentOrder,
  type PersonConversation,
  scopeSentence,
  skillScope,
} from "@switchboard/contract";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import { Icon } from "~/components/icon";
import { Button } from "~/components/ui/button";
import { ConfirmButton } from "~/components/ui/confirm-dialog";
import ui from "~/components/ui/layout.module.css";
import { useTRPC } from "~/trpc/client";
import styles from "./chat.module.css";

type SaveState = { state: "idle" } | { state: "saving" } | { state: "saved"; what: string };

/**
 * The person's settings for this agent, in a side panel beside the chat: what it may do (its
 * grant), acting without asking, reply-only, block, and removing it. One save model: every
 * change saves the moment it is made, and the panel says so; each applies to the agent's next
 * API call. The chat stays in view and refreshes live.
 */
export function ChatSettings({
  conversation,
  onClose,
}: {
  conversation: PersonConversation;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const agent = conversation.agent.id;
  const [saved, setSaved] = useState<SaveState>({ state: "idle" });
  // A box shows the person's choice at once and keeps it until the pages re-read what is stored.
  const [wanted, setWanted] = useState<Record<string, boolean>>({});
  const [failure, setFailure] = useState<unknown>(null);
  const panel = useRef<HTMLElement>(null);
  useEffect(() => panel.current?.focus(), []);
  // Escape closes the panel wherever focus is (a box being saved lets go of focus), unless it
  // is closing a dialog or menu of its own.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented) return;
      if (event.target instanceof Element && event.target.closest("dialog, [role='menu']")) return;
      onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);

  /** Runs one change, then re-reads the pages so every box shows what is stored. */
  const saveWith = async (
    what: string,
    change: () => Promise<unknown>,
    box?: { key: string; checked: boolean },
  ) => {
    setSaved({ state: "saving" });
    setFailure(null);
    if (box) setWanted((all) => ({ ...all, [box.key]: box.checked }));
    try {
      await change();
      await queryClient.invalidateQueries();
      setSaved({ state: "saved", what });
    } catch (error) {
      setFailure(error);
      setSaved({ state: "idle" });
    } finally {
      if (box) setWanted(({ [box.key]: _, ...rest }) => rest);
    }
  };
  const setGrant = useMutation(trpc.chats.setGrant.mutationOptions());
  const setAuto = useMutation(trpc.chats.setAutoExecute.mutationOptions());
  const setReplyOnly = useMutation(trpc.chats.setReplyOnly.mutationOptions());
  const setBlocked = useMutation(trpc.chats.setBlocked.mutationOptions());
  const remove = useMutation(trpc.chats.remove.mutationOptions());
  const busy = saved.state === "saving";
  const error = shownError(failure);

  const granted = new Set(conversation.grantedScopes);
  const toggleScope = (scope: AgentScope, on: boolean) => {
    // From what the boxes show now, so two quick changes both count.
    const next = new Set(conversation.requestedScopes.filter((s) => wanted[s] ?? granted.has(s)));
    if (on) next.add(scope);
    else next.delete(scope);
    void saveWith(
      on ? "It may do that now." : "It may no longer do that.",
      () => setGrant.mutateAsync({ agent, scopes: inConsentOrder([...next]) }),
      { key: scope, checked: on },
    );
  };
  // Acting without asking is offered only for create skills whose scope the agent asked for and
  // the person granted; the server refuses the rest.
  const autoSkills = createSkills.filter(
    (skill) =>
      conversation.requestedScopes.includes(skillScope(skill)) && granted.has(skillScope(skill)),
  );

  return (
    <aside
      className={styles.settings}
      id="chat-settings"
      aria-labelledby="chat-settings-heading"
      tabIndex={-1}
      ref={panel}
      data-testid="chat-settings"
    >
      <div className={styles.panelHead}>
        <h2 id="chat-settings-heading">Settings</h2>
        <Button
          variant="icon"
          onClick={onClose}
          aria-label="Close settings"
          data-testid="chat-settings-close"
        >
          <Icon name="close" />
        </Button>
      </div>
      <p className={ui.hint}>Changes save as you make them and apply to the agent's next call.</p>
      <p className={styles.saveState} role="status" data-testid="settings-status">
        {saved.state === "saving"
          ? "Saving…"
          : saved.state === "saved"
            ? `Saved. ${saved.what}`
            : ""}
      </p>
      <FormError message={error?.message} testId="settings-error" />

      {conversation.isContact && (
        <fieldset className={styles.grant} data-testid="grant-picker">
          <legend>What it may do</legend>
          {conversation.requestedScopes.length === 0 && (
            <p className={ui.hint}>It asks for nothing: it can only be talked to.</p>
          )}
          {inConsentOrder(conversation.requestedScopes).map((scope) => (
            <label className={`${ui.check} ${styles.grantRow}`} key={scope}>
              <input
                type="checkbox"
                checked={wanted[scope] ?? granted.has(scope)}
                onChange={(event) => toggleScope(scope, event.target.checked)}
                data-testid={`grant-${scope}`}
              />
              <span>{scopeSentence(scope)}</span>
            </label>
          ))}
        </fieldset>
      )}

      {conversation.isContact && (
        <fieldset className={styles.grant} data-testid="auto-execute">
          <legend>Let it act without asking</legend>
          {autoSkills.length === 0 ? (
            <p className={ui.hint} data-testid="auto-execute-none">
              Nothing to offer: it may act without a card only to create tasks, reminders, events or
              notes, and only where it asks for and you grant that kind of record.
            </p>
          ) : (
            autoSkills.map((skill) => (
              <label className={ui.check} key={skill}>
                <input
                  type="checkbox"
                  checked={wanted[skill] ?? conversation.autoExecuteSkills.includes(skill)}
                  onChange={(event) => {
                    const enabled = event.target.checked;
                    void saveWith(
                      enabled
                        ? `It creates ${skillRecordNoun(skill)} without asking.`
                        : `It asks before creating ${skillRecordNoun(skill)}.`,
                      () => setAuto.mutateAsync({ agent, skill, enabled }),
                      { key: skill, checked: enabled },
                    );
                  }}
                  data-testid={`auto-${skill}`}
                />
                <span>Create {skillRecordNoun(skill)} without a card</span>
              </label>
            ))
          )}
        </fieldset>
      )}

      <fieldset className={styles.grant}>
        <legend>When it may write</legend>
        <label className={ui.check}>
          <input
            type="checkbox"
            checked={wanted.replyOnly ?? conversation.initiation === "reply_only"}
            onChange={(event) => {
              const replyOnly = event.target.checked;
              void saveWith(
                replyOnly
                  ? "It may write only within 24 hours of your last message."
                  : "It may write to you at any time.",
                () => setReplyOnly.mutateAsync({ agent, replyOnly }),
                { key: "replyOnly", checked: replyOnly },
              );
            }}
            data-testid="setting-reply-only"
          />
          <span>Reply-only: only within 24 hours of your last message</span>
        </label>
      </fieldset>

      <div className={styles.panelDanger}>
        <Button
          variant={conversation.blocked ? "secondary" : "danger"}
          small
          disabled={busy}
          onClick={() =>
            void saveWith(
              conversation.blocked ? "It can reach you again." : "It can no longer reach you.",
              () => setBlocked.mutateAsync({ agent, blocked: !conversation.blocked }),
            )
          }
          data-testid="setting-block"
        >
          {conversation.blocked ? "Unblock" : "Block"}
        </Button>
        {conversation.isContact && (
          <ConfirmButton
            variant="danger"
            small
            disabled={busy}
            title="Remove this agent?"
            body="It loses all access and its waiting requests are declined; the chat stays."
            confirmLabel="Remove"
            onConfirm={() =>
              void saveWith("It is no longer in your contacts.", async () => {
                await remove.mutateAsync({ agent });
                router.refresh();
              })
            }
            testId="setting-remove"
          >
            Remove from contacts
          </ConfirmButton>
        )}
      </div>
    </aside>
  );
}

const skillRecordNoun = (skill: (typeof createSkills)[number]) =>
  `${skill.slice("create_".length)}s`;
