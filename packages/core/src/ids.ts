import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

export type IdPrefix =
  | "usr" // person or business
  | "ses" // console session
  | "agt" // agent
  | "tok" // agent token
  | "dk" // developer key
  | "cnv" // conversation
  | "msg" // message
  | "eth" // email thread
  | "eml" // email
  | "evt" // event
  | "act" // proposal
  | "wh" // webhook
  | "obj" // stored media object
  | "tsk" // task
  | "rem" // reminder
  | "cev" // calendar event
  | "not" // note
  | "pst" // feed post
  | "pcm" // comment on a post
  | "cal"; // call

/** A prefixed random id, e.g. `msg_3k9x…`: 20 characters of base36 (about 103 bits). */
export function newId(prefix: IdPrefix): string {
  const bytes = randomBytes(20);
  let out = "";
  for (const byte of bytes) out += ALPHABET[byte % 36];
  return `${prefix}_${out}`;
}
