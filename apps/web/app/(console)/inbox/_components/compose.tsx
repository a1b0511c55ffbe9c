"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { shownError } from "~/components/errors";
import { FieldError, invalidProps } from "~/components/field-error";
import { onFormSubmit } from "~/components/form";
import { FormError } from "~/components/form-error";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import ui from "~/components/ui/layout.module.css";
import { useTRPC } from "~/trpc/client";
import styles from "../inbox.module.css";
import { nameOf } from "./names";

const FIELDS = ["to", "subject", "content"] as const;

/** The numbers in the To field, however they were separated. */
const recipientsOf = (to: string) =>
  to
    .split(/[\s,;]+/)
    .map((part) => part.trim())
    .filter(Boolean);

/**
 * A new email: to one recipient (a 1:1 thread) or several (a group thread), by number; the
 * agents the person has added are one click away. Sent, the new thread opens.
 */
export function Compose({ initialTo = "" }: { initialTo?: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const [to, setTo] = useState(initialTo);
  // The newest page of chats: the agents the person writes to most are the ones to offer.
  const chats = useQuery(trpc.chats.list.queryOptions({}));
  const send = useMutation(trpc.inbox.send.mutationOptions());
  const error = shownError(send.error, FIELDS);
  const named = recipientsOf(to);
  const agents = (chats.data?.chats ?? []).filter((chat) => chat.isContact && !chat.blocked);

  return (
    <Card className={styles.compose} aria-labelledby="compose-heading">
      <Link href="/inbox" className={styles.back}>
        ← Inbox
      </Link>
      <title>New email · Inbox · Switchboard</title>
      <h1 id="compose-heading">New email</h1>
      <form
        className={ui.stack}
        onSubmit={onFormSubmit((form) => {
          send.mutate(
            {
              to: named,
              subject: String(form.get("subject") ?? ""),
              content: String(form.get("content") ?? ""),
            },
            { onSuccess: ({ threadId }) => router.push(`/inbox/${threadId}`) },
          );
        })}
      >
        <label>
          To
          <input
            name="to"
            className={ui.mono}
            placeholder="800-123-456, 412-555-019"
            value={to}
            onChange={(event) => setTo(event.target.value)}
            autoComplete="off"
            required
            aria-invalid={!!error?.fields.to}
            aria-describedby={`compose-to-hint${error?.fields.to ? " compose-to-error" : ""}`}
            data-testid="compose-to"
          />
          <span className={ui.hint} id="compose-to-hint">
            Numbers, separated by commas. Several recipients start a group thread.
          </span>
          <FieldError id="compose-to-error" message={error?.fields.to} />
        </label>
        {agents.length > 0 && (
          <fieldset className={styles.suggest}>
            <legend className={ui.visuallyHidden}>Add one of your agents</legend>
            {agents.map(({ agent }) => (
              <Button
                key={agent.id}
                variant="secondary"
                small
                aria-pressed={named.includes(agent.num)}
                disabled={named.includes(agent.num)}
                onClick={() => setTo([...named, agent.num].join(", "))}
                data-testid="compose-add-agent"
              >
                + {nameOf(agent)}
              </Button>
            ))}
          </fieldset>
        )}
        <label>
          Subject
          <input
            name="subject"
            maxLength={200}
            required
            {...invalidProps("compose-subject-error", error?.fields.subject)}
            data-testid="compose-subject"
          />
          <FieldError id="compose-subject-error" message={error?.fields.subject} />
        </label>
        <label>
          Message
          <textarea
            name="content"
            rows={8}
            maxLength={10_000}
            required
            {...invalidProps("compose-content-error", error?.fields.content)}
            data-testid="compose-content"
          />
          <FieldError id="compose-content-error" message={error?.fields.content} />
        </label>
        <FormError message={error?.message} testId="compose-error" />
        <div className={ui.row}>
          <Button type="submit" disabled={send.isPending} data-testid="compose-send">
            {send.isPending ? "Sending…" : named.length > 1 ? "Send to the group" : "Send"}
          </Button>
        </div>
      </form>
    </Card>
  );
}
