import { RecordType, RejectionInput } from "@switchboard/contract";
import { createRecord, decideAction, parseInput, setAutoExecute } from "@switchboard/core";
import { z } from "zod";
import { command, json, str } from "../command";

/** Deciding cards, records and auto-execute, as a person does in the apps. */
export const actionCommands = [
  command({
    name: "action approve",
    usage: "--user USER --action ID [--edited-payload JSON]",
    flags: {
      user: { type: "string", required: true },
      action: { type: "string", required: true },
      "edited-payload": { type: "string" },
    },
    async run(flags, deps) {
      const editedPayload = json("edited-payload", flags["edited-payload"]);
      return {
        action: await decideAction(deps, {
          userRef: String(flags.user),
          actionId: String(flags.action),
          approve: true,
          editedPayload,
          via: "cli",
        }),
      };
    },
  }),
  command({
    name: "action reject",
    usage: "--user USER --action ID [--reason TEXT] [--choice not_now|wrong_details|never]",
    flags: {
      user: { type: "string", required: true },
      action: { type: "string", required: true },
      reason: { type: "string" },
      choice: { type: "string" },
    },
    async run(flags, deps) {
      // The person's optional why, which the agent sees as `action.rejection`.
      const rejection = {
        reason: parseInput(RejectionInput.shape.reason, flags.reason, "--reason"),
        choice: parseInput(RejectionInput.shape.choice, flags.choice, "--choice"),
      };
      return {
        action: await decideAction(deps, {
          userRef: String(flags.user),
          actionId: String(flags.action),
          approve: false,
          via: "cli",
          rejection,
        }),
      };
    },
  }),
  command({
    name: "record create",
    usage: "--user USER --type task|reminder|event|note --data JSON",
    flags: {
      user: { type: "string", required: true },
      type: { type: "string", required: true },
      data: { type: "string", required: true },
    },
    async run(flags, deps) {
      const type = parseInput(RecordType, flags.type, "type");
      return {
        record: await createRecord(deps, String(flags.user), type, json("data", flags.data)),
      };
    },
  }),
  command({
    name: "autoexec set",
    usage: "--user USER --agent AGENT --skill SKILL --enabled true|false",
    flags: {
      user: { type: "string", required: true },
      agent: { type: "string", required: true },
      skill: { type: "string", required: true },
      enabled: { type: "string", required: true },
    },
    async run(flags, deps) {
      const enabled =
        parseInput(z.enum(["true", "false"]), str(flags.enabled), "enabled") === "true";
      await setAutoExecute(
        deps,
        String(flags.user),
        String(flags.agent),
        String(flags.skill),
        enabled,
      );
      return { ok: true };
    },
  }),
];
