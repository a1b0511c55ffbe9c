"use client";

import { type AgentPlatformSkill, skillFields } from "@switchboard/contract";
import { type ReactNode, useEffect, useState } from "react";
import { FieldError, invalidProps } from "./field-error";
import { onFormSubmit } from "./form";
import { Button } from "./ui/button";
import ui from "./ui/layout.module.css";

type Kind = "text" | "long" | "when" | "priority";

/** How each payload field is edited; `id` is never edited (it names the record). */
const kinds: Record<string, { label: string; kind: Kind }> = {
  title: { label: "Title", kind: "text" },
  description: { label: "Description", kind: "long" },
  content: { label: "Content", kind: "long" },
  location: { label: "Location", kind: "text" },
  dueDate: { label: "Due", kind: "when" },
  reminderTime: { label: "Remind at", kind: "when" },
  startTime: { label: "Starts", kind: "when" },
  endTime: { label: "Ends", kind: "when" },
  priority: { label: "Priority", kind: "priority" },
};

/** The fields of a skill's payload a person can edit, in the contract's order. */
export function editableFields(skill: AgentPlatformSkill): string[] {
  return skillFields[skill].filter((name) => name in kinds);
}

/**
 * The skills' payload schemas, loaded when a form first opens rather than with the page: they
 * bring zod, which a page that only shows cards never needs. A form starts the load as it
 * mounts, so by the time the person submits it has long arrived. A load that failed (the
 * connection dropped) is tried again at the next submit.
 */
let schemas: Promise<typeof import("@switchboard/contract").skillPayloads> | undefined;
const payloadSchemas = () =>
  (schemas ??= import("@switchboard/contract").then(
    (contract) => contract.skillPayloads,
    (error: unknown) => {
      schemas = undefined;
      throw error;
    },
  ));

/** An ISO date-time as a `datetime-local` value in the reader's time zone. */
function toLocalInput(value: unknown): string {
  if (typeof value !== "string" || Number.isNaN(Date.parse(value))) return "";
  const date = new Date(value);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/**
 * A form for a platform skill's payload (creating a record, or editing a card before approving
 * it). It builds the payload the skill expects and checks it against the skill's own contract
 * before submitting, so field errors show next to the fields; the server checks again.
 * An emptied field is left out, or cleared (null) where the skill allows it.
 */
export function SkillForm({
  skill,
  initial = {},
  submitLabel,
  pending,
  serverError,
  onSubmit,
  children,
  testId,
}: {
  skill: AgentPlatformSkill;
  initial?: Record<string, unknown>;
  submitLabel: string;
  pending?: boolean;
  serverError?: string | null;
  onSubmit: (payload: Record<string, unknown>) => void;
  children?: ReactNode;
  testId?: string;
}) {
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const fields = editableFields(skill);
  useEffect(() => void payloadSchemas().catch(() => {}), []);
  const clears = skill === "update_task";

  const submit = onFormSubmit(async (form) => {
    const payload: Record<string, unknown> = "id" in initial ? { id: initial.id } : {};
    for (const name of fields) {
      const raw = String(form.get(name) ?? "").trim();
      const kind = kinds[name]?.kind;
      if (raw === "") {
        if (clears && initial[name] != null && name !== "title") payload[name] = null;
        continue;
      }
      payload[name] = kind === "when" ? new Date(raw).toISOString() : raw;
    }
    const schema = await payloadSchemas().then(
      (loaded) => loaded[skill],
      () => null,
    );
    if (!schema) {
      setFormError("The form could not load its checks. Check your connection and try again.");
      return;
    }
    const checked = schema.safeParse(payload);
    if (!checked.success) {
      const byField: Record<string, string> = {};
      const other: string[] = [];
      for (const issue of checked.error.issues) {
        const field = String(issue.path[0] ?? "");
        // A required field left empty was left out of the payload: say so plainly.
        const message =
          issue.code === "invalid_type" && payload[field] === undefined
            ? "required"
            : issue.message;
        if (fields.includes(field)) byField[field] ??= message;
        else other.push(message);
      }
      setErrors(byField);
      setFormError(other.join("; ") || null);
      return;
    }
    setErrors({});
    setFormError(null);
    onSubmit(checked.data as Record<string, unknown>);
  });

  return (
    <form
      className={ui.stack}
      onSubmit={submit}
      // An error stays until the person changes something; then it is theirs to resubmit.
      onInput={() => {
        if (Object.keys(errors).length > 0 || formError) {
          setErrors({});
          setFormError(null);
        }
      }}
      noValidate
      data-testid={testId}
    >
      {fields.map((name) => {
        const { label, kind } = kinds[name] as { label: string; kind: Kind };
        const id = `${testId ?? skill}-${name}`;
        const error = errors[name];
        const common = {
          id,
          name,
          "data-testid": `field-${name}`,
          ...invalidProps(`${id}-error`, error),
        };
        const value = initial[name];
        return (
          <label key={name} htmlFor={id}>
            {label}
            {kind === "long" ? (
              <textarea
                rows={3}
                defaultValue={typeof value === "string" ? value : ""}
                {...common}
              />
            ) : kind === "when" ? (
              <input type="datetime-local" defaultValue={toLocalInput(value)} {...common} />
            ) : kind === "priority" ? (
              <select defaultValue={typeof value === "string" ? value : ""} {...common}>
                <option value="">No priority</option>
                <option value="low">Low</option>
                <option value="normal">Normal</option>
                <option value="high">High</option>
              </select>
            ) : (
              <input defaultValue={typeof value === "string" ? value : ""} {...common} />
            )}
            <FieldError id={`${id}-error`} message={error} />
          </label>
        );
      })}
      {(formError || serverError) && (
        <p className={ui.formError} role="alert">
          {formError ?? serverError}
        </p>
      )}
      <div className={ui.row}>
        <Button type="submit" disabled={pending} data-testid={`${testId ?? "skill"}-submit`}>
          {submitLabel}
        </Button>
        {children}
      </div>
    </form>
  );
}
