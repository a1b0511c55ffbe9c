import { z } from "zod";
import { DateTime, Num, oneLine } from "./common";

export const messageTypes = [
  "text",
  "voice",
  "image",
  "video",
  "location",
  "contact",
  "document",
  "sticker",
] as const;
export const AgentMessageType = z.enum(messageTypes);
export type AgentMessageType = z.infer<typeof AgentMessageType>;

/** Message content: the text, or a media caption. */
export const MAX_CONTENT_CHARS = 10_000;
/** Decoded size of a media data URL (the spec's voice limit; the service applies it to all media). */
export const MAX_MEDIA_BYTES = 10 * 1024 * 1024;
/** A media field's length on the wire; the decoded size is checked by the service. */
const MAX_MEDIA_FIELD_CHARS = 16 * 1024 * 1024;

const Dimension = z.number().int().nullable();

export const MessageAudio = z.object({ data: z.string(), duration: z.string().nullable() });
export const MessageImage = z.object({ data: z.string(), width: Dimension, height: Dimension });
export const MessageVideo = z.object({
  data: z.string(),
  thumbnail: z.string().nullable(),
  width: Dimension,
  height: Dimension,
});
export const MessageLocation = z.object({ latitude: z.string(), longitude: z.string() });
export const MessageDocument = z.object({
  data: z.string(),
  name: z.string().nullable(),
  size: z.string().nullable(),
  mimeType: z.string().nullable(),
});
export const MessageSharedContact = z.object({
  id: z.string().nullable(),
  num: z.string(),
  name: z.string().nullable(),
  avatar: z.string().nullable(),
  type: z.string().nullable(),
});

/** The media groups of AgentMessage. */
export const MessageMedia = z.object({
  audio: MessageAudio.optional(),
  image: MessageImage.optional(),
  video: MessageVideo.optional(),
  location: MessageLocation.optional(),
  document: MessageDocument.optional(),
  sharedContact: MessageSharedContact.optional(),
});
export type MessageMedia = z.infer<typeof MessageMedia>;
export type MediaGroup = keyof MessageMedia;
const mediaGroups = Object.keys(MessageMedia.shape) as MediaGroup[];

/** The one media group each type carries (text carries none). */
export const mediaGroupOf = {
  text: null,
  voice: "audio",
  image: "image",
  sticker: "image",
  video: "video",
  location: "location",
  contact: "sharedContact",
  document: "document",
} as const satisfies Record<AgentMessageType, MediaGroup | null>;

/** AgentMessage's fields, before the rule that media groups appear only for their type. */
export const AgentMessageFields = MessageMedia.extend({
  id: z.string(),
  conversationId: z.string(),
  senderId: z.string(),
  senderNum: z.string().optional(),
  type: AgentMessageType,
  content: z.string(),
  replyToId: z.string().nullable(),
  agentActionId: z.string().nullable(),
  createdAt: DateTime,
  /** Voice only, once available. */
  transcript: z.string().optional(),
});

/** A message's media group is present exactly for its type; a transcript only on voice. */
export function checkMediaGroups(
  message: Pick<AgentMessage, "type" | "transcript"> & MessageMedia,
  ctx: z.RefinementCtx,
): void {
  const own = mediaGroupOf[message.type];
  for (const group of mediaGroups) {
    const present = message[group] !== undefined;
    if (present !== (group === own))
      ctx.addIssue({
        code: "custom",
        path: [group],
        message: present ? `not present on ${message.type} messages` : "required",
      });
  }
  if (message.transcript !== undefined && message.type !== "voice")
    ctx.addIssue({ code: "custom", path: ["transcript"], message: "voice messages only" });
}

export const AgentMessage = AgentMessageFields.superRefine(checkMediaGroups);
export type AgentMessage = z.infer<typeof AgentMessageFields>;

const text = (min: number, max: number) =>
  z
    .string()
    .min(min, min === 1 ? `must be 1-${max} characters` : `must be at least ${min} characters`)
    .max(max, min === 1 ? `must be 1-${max} characters` : `must be at most ${max} characters`);
const upTo = (max: number) => z.string().max(max, `must be at most ${max} characters`);
const Id = text(1, 100);
const MediaData = text(1, MAX_MEDIA_FIELD_CHARS);
const Coordinate = (limit: number) =>
  z
    .string()
    .max(32, "must be at most 32 characters")
    .regex(/^[+-]?\d{1,3}(\.\d+)?$/, "must be decimal degrees")
    .refine((value) => Math.abs(Number(value)) <= limit, `must be between -${limit} and ${limit}`);
const Pixels = z
  .number()
  .int("must be a whole number")
  .min(1, "must be at least 1")
  .max(100_000, "must be at most 100000");

/** Everything a message says, whoever sends it: the type and content fields of a send. */
export const MessageInput = z.strictObject({
  type: AgentMessageType,
  content: text(1, MAX_CONTENT_CHARS).optional(),
  replyToId: Id.optional(),
  audioData: MediaData.optional(),
  audioDuration: upTo(10)
    .regex(/^\d+(\.\d+)?$/, "must be a number of seconds, like 4.2")
    .optional(),
  transcript: text(1, MAX_CONTENT_CHARS).optional(),
  tts: z
    .strictObject({
      text: text(1, MAX_CONTENT_CHARS),
      voice: z
        .string()
        .regex(/^[A-Za-z0-9][\w+.-]{0,49}$/, "must be a voice name of 1-50 letters, digits, _+.-")
        .optional(),
    })
    .optional(),
  imageData: MediaData.optional(),
  videoData: MediaData.optional(),
  thumbnailData: text(1, 500).optional(),
  latitude: Coordinate(90).optional(),
  longitude: Coordinate(180).optional(),
  sharedContactId: Id.optional(),
  sharedContactName: text(1, 100).refine(oneLine, "must be one line").optional(),
  sharedContactNum: Num.optional(),
  sharedContactAvatar: text(1, 2000).optional(),
  sharedContactType: text(1, 20).optional(),
  documentData: MediaData.optional(),
  documentName: text(1, 255).refine(oneLine, "must be one line").optional(),
  documentSize: text(1, 20).optional(),
  documentMimeType: text(1, 100).optional(),
  mediaWidth: Pixels.optional(),
  mediaHeight: Pixels.optional(),
});
export type MessageInput = z.infer<typeof MessageInput>;
type InputField = keyof MessageInput;

/** Per type: the field sets that satisfy it (any one set), and the media fields it may carry. */
const typeRules: Record<AgentMessageType, { needs: InputField[][]; allows: InputField[] }> = {
  text: { needs: [], allows: [] },
  voice: {
    needs: [["audioData", "audioDuration"], ["tts"]],
    allows: ["audioData", "audioDuration", "transcript", "tts"],
  },
  image: { needs: [["imageData"]], allows: ["imageData", "mediaWidth", "mediaHeight"] },
  sticker: { needs: [["imageData"]], allows: ["imageData", "mediaWidth", "mediaHeight"] },
  video: {
    needs: [["videoData"]],
    allows: ["videoData", "thumbnailData", "mediaWidth", "mediaHeight"],
  },
  location: { needs: [["latitude", "longitude"]], allows: ["latitude", "longitude"] },
  contact: {
    needs: [["sharedContactId", "sharedContactNum"]],
    allows: [
      "sharedContactId",
      "sharedContactName",
      "sharedContactNum",
      "sharedContactAvatar",
      "sharedContactType",
    ],
  },
  document: {
    needs: [["documentData", "documentName"]],
    allows: ["documentData", "documentName", "documentSize", "documentMimeType"],
  },
};
const mediaFields = [...new Set(Object.values(typeRules).flatMap((rule) => rule.allows))];

/** Who is sending decides two rules: people may leave captions out, and speak for themselves. */
export type MessageSender = "agent" | "person";

/**
 * The per-type rules of AgentSendMessageRequest as zod issues on the offending fields: the
 * type's required fields, no media fields of other types, `tts` instead of (not with) audio, and
 * `content` unless `tts` gives it. A person's voice note needs only its audio (the apps measure
 * the duration when they can), captions are optional, and `tts` and `transcript` are the
 * service's business, not theirs.
 */
export function checkMessageType(
  input: MessageInput,
  ctx: z.RefinementCtx,
  sender: MessageSender = "agent",
): void {
  const needs =
    sender === "person" && input.type === "voice" ? [["audioData"] as InputField[]] : undefined;
  const rule = { ...typeRules[input.type], ...(needs && { needs }) };
  const given = (field: InputField) => input[field] !== undefined;
  if (rule.needs.length > 0 && !rule.needs.some((set) => set.every(given))) {
    const how = rule.needs.map((set) => set.join(" + ")).join(", or ");
    for (const field of (rule.needs[0] ?? []).filter((f) => !given(f)))
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: `${input.type} messages need ${how}`,
      });
  }
  for (const field of mediaFields)
    if (given(field) && !rule.allows.includes(field))
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: `not allowed on ${input.type} messages`,
      });
  if (input.tts && (given("audioData") || given("audioDuration")))
    ctx.addIssue({
      code: "custom",
      path: ["tts"],
      message: "give either tts or audioData + audioDuration, not both",
    });
  if (sender === "person")
    for (const field of ["tts", "transcript"] as const)
      if (given(field))
        ctx.addIssue({
          code: "custom",
          path: [field],
          message: "set by the service for a person's voice note",
        });
  if (!given("content") && !input.tts && (sender === "agent" || input.type === "text"))
    ctx.addIssue({
      code: "custom",
      path: ["content"],
      message: sender === "agent" ? "required unless tts is given" : "required on text messages",
    });
}

/** A person's message from the apps (console, CLI). */
export const PersonMessageInput = MessageInput.superRefine((input, ctx) =>
  checkMessageType(input, ctx, "person"),
);
export type PersonMessageInput = z.infer<typeof PersonMessageInput>;

/** `POST /agent/v1/messages`. Exactly one of `to` or `conversationId`. */
export const AgentSendMessageRequest = MessageInput.extend({
  to: Num.optional(),
  conversationId: Id.optional(),
}).superRefine((request, ctx) => {
  if ((request.to === undefined) === (request.conversationId === undefined))
    for (const field of ["to", "conversationId"])
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: "give exactly one of to or conversationId",
      });
  checkMessageType(request, ctx);
});
export type AgentSendMessageRequest = z.infer<typeof AgentSendMessageRequest>;

export const AgentSendMessageResponse = z.object({
  message: AgentMessage,
  conversationId: z.string(),
});
export type AgentSendMessageResponse = z.infer<typeof AgentSendMessageResponse>;

/** Emoji are counted in code points, so a flag or a skin-toned thumb is not "too long". */
export const Emoji = z
  .string()
  .refine((value) => {
    const length = [...value].length;
    return length >= 1 && length <= 10;
  }, "must be 1-10 characters")
  .refine((value) => value.trim() === value && oneLine(value), "must not contain blanks");

/** `POST /agent/v1/messages/{messageId}/reactions`. */
export const AgentReactionRequest = z.strictObject({ emoji: Emoji });
export type AgentReactionRequest = z.infer<typeof AgentReactionRequest>;

export const Reaction = z.object({ messageId: z.string(), emoji: z.string(), createdAt: DateTime });
export type Reaction = z.infer<typeof Reaction>;

export const AgentReactionResponse = z.object({ reaction: Reaction });
