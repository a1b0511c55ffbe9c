import { readFileSync } from "node:fs";
import path from "node:path";
import {
  addContact,
  addUserContact,
  blockAgent,
  CoreError,
  findUser,
  listSelfMessages,
  removeContact,
  sendPersonMessage,
  setGrant,
  setInitiation,
  setMessageTranscript,
  unblockAgent,
} from "@switchboard/core";
import { command, list, str } from "../command";

const userAgent = {
  user: { type: "string", required: true },
  agent: { type: "string", required: true },
} as const;

/** A file as a data URL, so the CLI sends media exactly as an app would upload it. */
function fileDataUrl(file: string, mime: string): string {
  return `data:${mime};base64,${readFileSync(path.resolve(file)).toString("base64")}`;
}

const mimeByExtension: Record<string, string> = {
  ".wav": "audio/wav",
  ".mp3": "audio/mpeg",
  ".ogg": "audio/ogg",
  ".opus": "audio/ogg",
  ".webm": "audio/webm",
  ".m4a": "audio/mp4",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
};
/** A video's extensions (`.webm` is audio above: a voice note's recording). */
const videoMimeByExtension: Record<string, string> = {
  ".mp4": "video/mp4",
  ".m4v": "video/mp4",
  ".mov": "video/quicktime",
  ".webm": "video/webm",
  ".ogv": "video/ogg",
};
const mimeOf = (file: string, byExtension = mimeByExtension) =>
  byExtension[path.extname(file).toLowerCase()] ?? "application/octet-stream";
const pixels = (value: string | boolean | undefined) =>
  str(value) === undefined ? undefined : Number(value);

/** What a person does in the apps, for simulations and tests (spec/cli.md "As a person"). */
export const personCommands = [
  command({
    name: "contact add",
    usage:
      '--user USER (--agent AGENT --grant S,... | --person USER)   (--grant "" grants nothing)',
    flags: {
      user: { type: "string", required: true },
      agent: { type: "string" },
      grant: { type: "string" },
      person: { type: "string" },
    },
    async run(flags, deps) {
      const agent = str(flags.agent);
      const person = str(flags.person);
      // Another person (what an agent's `contacts_of_contacts` request privacy looks at).
      if (person !== undefined && agent === undefined && flags.grant === undefined)
        return addUserContact(deps, String(flags.user), person);
      if (agent === undefined || flags.grant === undefined || person !== undefined)
        throw new CoreError("validation_error", "Give --agent with --grant, or --person", {
          issues: [
            {
              path: agent === undefined ? "agent" : "person",
              message: "give --agent with --grant, or --person",
            },
          ],
        });
      const { conversationId } = await addContact(
        deps,
        String(flags.user),
        agent,
        list(flags.grant),
      );
      return { conversationId };
    },
  }),
  command({
    name: "contact remove",
    usage: "--user USER --agent AGENT",
    flags: userAgent,
    async run(flags, deps) {
      await removeContact(deps, String(flags.user), String(flags.agent));
      return { ok: true };
    },
  }),
  command({
    name: "grant set",
    usage: "--user USER --agent AGENT --scopes S,...",
    flags: { ...userAgent, scopes: { type: "string", required: true } },
    async run(flags, deps) {
      return setGrant(deps, String(flags.user), String(flags.agent), list(flags.scopes));
    },
  }),
  command({
    name: "initiation set",
    usage: "--user USER --agent AGENT --mode any|reply_only",
    flags: { ...userAgent, mode: { type: "string", required: true } },
    async run(flags, deps) {
      await setInitiation(
        deps,
        String(flags.user),
        String(flags.agent),
        String(flags.mode) as "any",
      );
      return { ok: true };
    },
  }),
  command({
    name: "block",
    usage: "--user USER --agent AGENT",
    flags: userAgent,
    async run(flags, deps) {
      await blockAgent(deps, String(flags.user), String(flags.agent));
      return { ok: true };
    },
  }),
  command({
    name: "unblock",
    usage: "--user USER --agent AGENT",
    flags: userAgent,
    async run(flags, deps) {
      await unblockAgent(deps, String(flags.user), String(flags.agent));
      return { ok: true };
    },
  }),
  command({
    name: "send",
    usage:
      "--from USER --to AGENT [--type text|voice|image|video|document|location|contact|sticker] [--content C] [--reply-to ID] [--audio FILE --duration S] [--image FILE] [--video FILE [--thumbnail PATH]] [--width W --height H] [--document FILE] [--latitude X --longitude Y] [--contact USER [--contact-name N]]",
    flags: {
      from: { type: "string", required: true },
      to: { type: "string", required: true },
      type: { type: "string" },
      content: { type: "string" },
      "reply-to": { type: "string" },
      audio: { type: "string" },
      duration: { type: "string" },
      image: { type: "string" },
      video: { type: "string" },
      thumbnail: { type: "string" },
      width: { type: "string" },
      height: { type: "string" },
      document: { type: "string" },
      latitude: { type: "string" },
      longitude: { type: "string" },
      contact: { type: "string" },
      "contact-name": { type: "string" },
    },
    async run(flags, deps) {
      const audio = str(flags.audio);
      const image = str(flags.image);
      const video = str(flags.video);
      const document = str(flags.document);
      // A shared contact is someone on the service: named by number or id, sent with both.
      const contactRef = str(flags.contact);
      const shared = contactRef ? await findUser(deps, contactRef) : undefined;
      // Only the flags given become fields: the contract's per-type rules name any that do not
      // belong to the type.
      const { message } = await sendPersonMessage(deps, String(flags.from), String(flags.to), {
        type: str(flags.type) ?? "text",
        content: str(flags.content),
        replyToId: str(flags["reply-to"]),
        ...(audio && {
          audioData: fileDataUrl(audio, mimeOf(audio)),
          audioDuration: str(flags.duration),
        }),
        ...(image && { imageData: fileDataUrl(image, mimeOf(image)) }),
        ...(video && { videoData: fileDataUrl(video, mimeOf(video, videoMimeByExtension)) }),
        thumbnailData: str(flags.thumbnail),
        mediaWidth: pixels(flags.width),
        mediaHeight: pixels(flags.height),
        ...(document && {
          documentData: fileDataUrl(document, mimeOf(document)),
          documentName: path.basename(document),
        }),
        latitude: str(flags.latitude),
        longitude: str(flags.longitude),
        ...(shared && { sharedContactId: shared.id, sharedContactNum: shared.num }),
        sharedContactName: str(flags["contact-name"]) ?? shared?.displayName ?? undefined,
      });
      return { message };
    },
  }),
  command({
    name: "transcript",
    usage: "--message ID --text T",
    flags: {
      message: { type: "string", required: true },
      text: { type: "string", required: true },
    },
    async run(flags, deps) {
      await setMessageTranscript(deps, String(flags.message), String(flags.text));
      return { ok: true };
    },
  }),
  command({
    name: "selfchat list",
    usage: "--user USER",
    flags: { user: { type: "string", required: true } },
    async run(flags, deps) {
      const user = await findUser(deps, String(flags.user));
      return { messages: await listSelfMessages(deps, user.id) };
    },
  }),
];
