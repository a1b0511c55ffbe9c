import { findAgent, mintAgentToken, revokeAgentToken } from "@switchboard/core";
import { command, isoDate } from "../command";

/** Agent API tokens; the raw token is printed this once (sent as `Bearer agent:<token>`). */
export const tokenCommands = [
  command({
    name: "token mint",
    usage: "--agent AGENT [--expires ISO] [--name NAME]",
    flags: {
      agent: { type: "string", required: true },
      expires: { type: "string" },
      name: { type: "string" },
    },
    async run(flags, deps) {
      const expiresAt = isoDate("expires", flags.expires);
      const agent = await findAgent(deps, flags.agent);
      const { token } = await mintAgentToken(deps, agent.id, { expiresAt, name: flags.name });
      return { token };
    },
  }),
  command({
    name: "token revoke",
    usage: "--token TOKEN",
    flags: { token: { type: "string", required: true } },
    async run(flags, deps) {
      await revokeAgentToken(deps, { token: flags.token });
      return { ok: true };
    },
  }),
];
