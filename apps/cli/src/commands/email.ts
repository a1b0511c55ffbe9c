import { sendPersonEmail } from "@switchboard/core";
import { command, list, str } from "../command";

/** A person's email (spec/cli.md "As a person"): several `--to` start a group thread. */
export const emailCommands = [
  command({
    name: "email send",
    usage: "--from USER --to AGENT[,USER...] [--thread ID] [--subject S] --content C",
    flags: {
      from: { type: "string", required: true },
      to: { type: "string", required: true },
      thread: { type: "string" },
      subject: { type: "string" },
      content: { type: "string", required: true },
    },
    async run(flags, deps) {
      const { threadId, message } = await sendPersonEmail(deps, flags.from, {
        to: list(flags.to),
        threadId: str(flags.thread),
        subject: str(flags.subject),
        content: flags.content,
      });
      return { threadId, messageId: message.id };
    },
  }),
];
