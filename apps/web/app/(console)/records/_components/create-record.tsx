"use client";

import type { AgentPlatformSkill } from "@switchboard/contract";
import { useMutation } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { shownError } from "~/components/errors";
import { SkillForm } from "~/components/skill-form";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { useTRPC } from "~/trpc/client";
import type { RecordType } from "./sections";

/** The new-record form, opened by the list's "New …" button: focus starts in its first field. */
export function CreateRecord({
  id,
  type,
  onClose,
}: {
  id: string;
  type: RecordType;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const [formKey, setFormKey] = useState(0);
  const create = useMutation(
    trpc.records.create.mutationOptions({ onSuccess: () => setFormKey((k) => k + 1) }),
  );
  const card = useRef<HTMLElement>(null);
  // Opening (and each reset after an add) puts the cursor in the first field, ready to type.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the form is (re)made.
  useEffect(() => {
    card.current?.querySelector<HTMLElement>("input, textarea, select")?.focus();
  }, [formKey]);
  return (
    <Card id={id} ref={card} aria-labelledby="create-heading">
      <h2 id="create-heading">New {type}</h2>
      <SkillForm
        key={`${type}-${formKey}`}
        skill={`create_${type}` as AgentPlatformSkill}
        submitLabel={`Add ${type}`}
        pending={create.isPending}
        serverError={shownError(create.error)?.message}
        onSubmit={(data) => create.mutate({ type, data })}
        testId="record-create-form"
      >
        <Button variant="secondary" onClick={onClose} data-testid="record-create-close">
          Close
        </Button>
      </SkillForm>
    </Card>
  );
}
