"use client";

import { useRouter } from "next/navigation";
import { normalizeAgentNumber } from "~/components/agent-number";
import { onFormSubmit } from "~/components/form";

/** Looks an agent up by its 800 number; its consent card opens below. */
export function FindAgent({ initial = "" }: { initial?: string }) {
  const router = useRouter();
  return (
    <section className="card" aria-labelledby="find-heading">
      <h2 id="find-heading">Find an agent</h2>
      <p className="muted">
        Agents have numbers that start with 800, like 800-123-456 (dashes and spaces optional).
      </p>
      <form
        className="row align-end find-agent"
        onSubmit={onFormSubmit((form) => {
          const agent = normalizeAgentNumber(String(form.get("agent") ?? ""));
          if (agent) router.push(`/chats/add?agent=${encodeURIComponent(agent)}`);
        })}
      >
        <label>
          Agent number
          <input
            name="agent"
            className="mono"
            inputMode="numeric"
            placeholder="800-123-456"
            defaultValue={initial}
            key={initial}
            required
            autoComplete="off"
            data-testid="find-agent-number"
          />
        </label>
        <button type="submit" data-testid="find-agent-submit">
          Find
        </button>
      </form>
    </section>
  );
}
