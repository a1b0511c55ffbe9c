import { createUser, parseInput, setUserSuspended } from "@switchboard/core";
import { z } from "zod";
import { command, str } from "../command";

export const userCommands = [
  command({
    name: "user create",
    usage: "[--name N] [--num NNN-NNN-NNN] [--type person|business] [--email E --password P]",
    flags: {
      name: { type: "string" },
      num: { type: "string" },
      type: { type: "string" },
      email: { type: "string" },
      password: { type: "string" },
    },
    async run(flags, deps) {
      const userType = parseInput(z.enum(["person", "business"]).optional(), flags.type, "type");
      const user = await createUser(deps, {
        displayName: str(flags.name),
        num: str(flags.num),
        userType,
        email: str(flags.email),
        password: str(flags.password),
      });
      return {
        user: {
          id: user.id,
          num: user.num,
          displayName: user.displayName,
          userType: user.userType,
        },
      };
    },
  }),
  command({
    name: "user suspend",
    usage: "--user USER",
    flags: { user: { type: "string", required: true } },
    async run(flags, deps) {
      await setUserSuspended(deps, String(flags.user), true);
      return { ok: true };
    },
  }),
  command({
    name: "user unsuspend",
    usage: "--user USER",
    flags: { user: { type: "string", required: true } },
    async run(flags, deps) {
      await setUserSuspended(deps, String(flags.user), false);
      return { ok: true };
    },
  }),
];
