import { createDeveloperKey, revokeDeveloperKey } from "@switchboard/core";
import { command, isoDate, list } from "../command";

/** Developer API keys; the raw key is printed this once (sent as `Bearer dev:<key>`). */
export const devkeyCommands = [
  command({
    name: "devkey create",
    usage: "--user USER --scopes S,... [--expires ISO] [--name NAME]",
    flags: {
      user: { type: "string", required: true },
      scopes: { type: "string", required: true },
      expires: { type: "string" },
      name: { type: "string" },
    },
    async run(flags, deps) {
      // Core parses the scopes with the contract's DevScope (an empty list is allowed).
      const { key } = await createDeveloperKey(deps, flags.user, {
        scopes: list(flags.scopes),
        expiresAt: isoDate("expires", flags.expires),
        name: flags.name,
      });
      return { key };
    },
  }),
  command({
    name: "devkey revoke",
    usage: "--key KEY",
    flags: { key: { type: "string", required: true } },
    async run(flags, deps) {
      await revokeDeveloperKey(deps, { key: flags.key });
      return { ok: true };
    },
  }),
];
