import { UserType } from "@switchboard/contract";
import { createUser, parseInput, setUserSuspended } from "@switchboard/core";
import { command } from "../command";

/** Operator account commands for people and businesses (spec/cli.md "Accounts"). */
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
      const userType = parseInput(
        UserType.extract(["person", "business"]).optional(),
        flags.type,
        "type",
      );
      const user = await createUser(deps, {
        displayName: flags.name,
        num: flags.num,
        userType,
        email: flags.email,
        password: flags.password,
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
      await setUserSuspended(deps, flags.user, true);
      return { ok: true };
    },
  }),
  command({
    name: "user unsuspend",
    usage: "--user USER",
    flags: { user: { type: "string", required: true } },
    async run(flags, deps) {
      await setUserSuspended(deps, flags.user, false);
      return { ok: true };
    },
  }),
];
