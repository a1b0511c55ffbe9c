import { AgentScope, RequestPrivacy } from "@switchboard/contract";
import {
  createAgent,
  findAgent,
  findUser,
  parseInput,
  pauseAgent,
  resumeAgent,
} from "@switchboard/core";
import { z } from "zod";
import { command, list } from "../command";

/** Operator agent commands (spec/cli.md "Accounts"). */
export const agentCommands = [
  command({
    name: "agent create",
    usage:
      "--owner USER --name N [--scopes S,...] [--privacy everyone|nobody|contacts_of_contacts] [--bio B]",
    flags: {
      owner: { type: "string", required: true },
      name: { type: "string", required: true },
      scopes: { type: "string" },
      privacy: { type: "string" },
      bio: { type: "string" },
    },
    async run(flags, deps) {
      const requestedScopes = parseInput(z.array(AgentScope), list(flags.scopes), "scopes");
      const requestPrivacy = parseInput(RequestPrivacy.optional(), flags.privacy, "privacy");
      const owner = await findUser(deps, flags.owner);
      const agent = await createAgent(deps, {
        ownerId: owner.id,
        displayName: flags.name,
        requestedScopes,
        requestPrivacy,
        bio: flags.bio,
      });
      return { agent: { id: agent.id, num: agent.num } };
    },
  }),
  command({
    name: "agent pause",
    usage: "--agent AGENT",
    flags: { agent: { type: "string", required: true } },
    async run(flags, deps) {
      await pauseAgent(deps, (await findAgent(deps, flags.agent)).id);
      return { ok: true };
    },
  }),
  command({
    name: "agent resume",
    usage: "--agent AGENT",
    flags: { agent: { type: "string", required: true } },
    async run(flags, deps) {
      await resumeAgent(deps, (await findAgent(deps, flags.agent)).id);
      return { ok: true };
    },
  }),
];
