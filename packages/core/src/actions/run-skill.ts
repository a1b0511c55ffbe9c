import {
  type AgentActionExecution,
  type AgentPlatformSkill,
  MAX_PAYLOAD_BYTES,
  skillPayloads,
  toErrorIssues,
} from "@switchboard/contract";
import type { Tx } from "@switchboard/db";
import { CoreError } from "../errors";
import { applySkill } from "../records/apply-skill";

/** A skill payload against its contract; `invalid_payload` with issues otherwise. */
export function checkSkillPayload(skill: AgentPlatformSkill, payload: unknown, path = "payload") {
  const parsed = skillPayloads[skill].safeParse(payload);
  if (!parsed.success) {
    const issues = toErrorIssues(parsed.error).map((i) => ({
      ...i,
      path: [path, i.path].filter(Boolean).join("."),
    }));
    throw new CoreError("invalid_payload", `The payload does not match the ${skill} contract`, {
      issues,
    });
  }
  return parsed.data;
}

/** A custom (agent-executed) payload: any object up to 16 KB serialized. */
export function checkCustomPayload(payload: unknown, path = "payload"): Record<string, unknown> {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload))
    throw new CoreError("validation_error", `${path} must be an object`, {
      issues: [{ path, message: "must be an object" }],
    });
  if (Buffer.byteLength(JSON.stringify(payload)) > MAX_PAYLOAD_BYTES)
    throw new CoreError("validation_error", `${path} is larger than 16 KB`, {
      issues: [{ path, message: `must be at most ${MAX_PAYLOAD_BYTES} bytes serialized` }],
    });
  return payload as Record<string, unknown>;
}

/** Runs an approved skill on the approver's account; a failure is reported, the approval stands. */
export async function runSkill(
  tx: Tx,
  approverId: string,
  skill: AgentPlatformSkill,
  payload: unknown,
  now: Date,
  auto: boolean,
): Promise<AgentActionExecution> {
  const outcome = await applySkill(tx, approverId, skill, checkSkillPayload(skill, payload), now);
  return outcome.status === "succeeded"
    ? {
        status: "succeeded",
        recordType: outcome.recordType,
        recordId: outcome.recordId,
        executedAt: now.toISOString(),
        auto,
      }
    : {
        status: "failed",
        recordType: outcome.recordType,
        error: outcome.error,
        executedAt: now.toISOString(),
        auto,
      };
}
