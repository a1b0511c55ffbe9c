import { endCall, parseInput } from "@switchboard/core";
import { z } from "zod";
import { command, list, str } from "../command";

const Seconds = z
  .string()
  .regex(/^\d{1,9}$/, "must be a whole number of seconds")
  .transform(Number);

/** Calls between people, as the messaging service's call system reports them. */
export const callCommands = [
  command({
    name: "call end",
    usage:
      "--user USER --participants USER,... [--group] [--duration S] [--summary S] [--transcript T]   (--summary is each participant's; none without --transcript)",
    flags: {
      user: { type: "string", required: true },
      participants: { type: "string", required: true },
      group: { type: "boolean" },
      duration: { type: "string" },
      summary: { type: "string" },
      transcript: { type: "string" },
    },
    async run(flags, deps) {
      const user = String(flags.user);
      // The one ending the call is on it, whether or not --participants names them again.
      const everyone = [user, ...list(flags.participants).filter((ref) => ref !== user)];
      const duration = str(flags.duration);
      return endCall(deps, {
        participants: everyone.map((ref) => ({ user: ref, summary: str(flags.summary) })),
        isGroup: flags.group === true,
        duration: duration === undefined ? 0 : parseInput(Seconds, duration, "duration"),
        transcript: str(flags.transcript),
      });
    },
  }),
];
