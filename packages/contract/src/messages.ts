import { z } from "zod";
import { DateTime, Num } from "./common";
import { AgentScope } from "./scopes";
import { AgentUser } from "./users";

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

const Dimension = z.number().int().nullable();

/** The media group of each type; a message carries only its own type's group. */
export const MessageMedia = z.object({
  audio: z.object({ data: z.string(), duration: z.string().nullable() }).optional(),
  image: z.object({ data: z.string(), width: Dimension, height: Dimension }).optional(),
  video: z
    .object({
      data: z.string(),
      thumbnail: z.string().nullable(),
      width: Dimension,
      height: Dimension,
    })
    .optional(),
  location: z.object({ latitude: z.string(), longitude: z.string() }).optional(),
  document: z
    .object({
      data: z.string(),
      name: z.string().nullable(),
      size: z.string().nullable(),
      mimeType: z.string().nullable(),
    })
    .optional(),
  sharedContact: z
    .object({
      id: z.string().nullable(),
      num: z.string(),
      name: z.string().nullable(),
      avatar: z.string().nullable(),
      type: z.string().nullable(),
    })
    .optional(),
});
export type MessageMedia = z.infer<typeof MessageMedia>;

export const AgentMessage = MessageMedia.extend({
  id: z.string(),
  conversationId: z.string(),
  senderId: z.string(),
  senderNum: z.string().optional(),
  type: AgentMessageType,
  content: z.string(),
  replyToId: z.string().nullable(),
  agentActionId: z.string().nullable(),
  createdAt: DateTime,
  transcript: z.string().optional(),
});
export type AgentMessage = z.infer<typeof AgentMessage>;

const bounded = (max: number) => z.string().max(max, `must be at most ${max} characters`);

/** What a message says, whoever sends it: the body and type fields of AgentSendMessageRequest. */
export const MessageInput = z.strictObject({
  type: AgentMessageType,
  content: z
    .string()
    .min(1, "must be 1-10000 characters")
    .max(10_000, "must be 1-10000 characters")
    .optional(),
  replyToId: z.string().min(1).optional(),
  audioData: z.string().optional(),
  audioDuration: bounded(10).optional(),
  transcript: bounded(10_000).optional(),
  tts: z
    .strictObject({ text: z.string().min(1).max(2000), voice: z.string().max(50).optional() })
    .optional(),
  imageData: z.string().min(1).optional(),
  videoData: z.string().min(1).optional(),
  thumbnailData: bounded(500).optional(),
  latitude: z.string().min(1).max(32).optional(),
  longitude: z.string().min(1).max(32).optional(),
  sharedContactId: z.string().min(1).max(100).optional(),
  sharedContactName: bounded(100).optional(),
  sharedContactNum: Num.optional(),
  sharedContactAvatar: bounded(2000).optional(),
  sharedContactType: bounded(20).optional(),
  documentData: z.string().min(1).optional(),
  documentName: z.string().min(1).max(255, "must be at most 255 characters").optional(),
  documentSize: bounded(20).optional(),
  documentMimeType: bounded(100).optional(),
  mediaWidth: z.number().int().min(1).optional(),
  mediaHeight: z.number().int().min(1).optional(),
});
export type MessageInput = z.infer<typeof MessageInput>;

/** Fields each type needs, and the media fields it may carry. */
const typeRules: Record<
  AgentMessageType,
  { needs: (keyof MessageInput)[][]; allows: (keyof MessageInput)[] }
> = {
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

/**
 * Per-type rules of AgentSendMessageRequest, as zod issues on the offending fields. Agents must
 * give `content` (the text, or a media caption) unless `tts` is given; people may leave captions out.
 */
export function checkMessageType(
  input: MessageInput,
  ctx: z.RefinementCtx,
  contentRequired = true,
): void {
  const rule = typeRules[input.type];
  const satisfied =
    rule.needs.length === 0 ||
    rule.needs.some((set) => set.every((field) => input[field] !== undefined));
  if (!satisfied)
    for (const field of rule.needs[0]!.filter((f) => input[f] === undefined))
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: `${input.type} messages need ${rule.needs.map((set) => set.join(" + ")).join(", or ")}`,
      });
  for (const field of mediaFields)
    if (input[field] !== undefined && !rule.allows.includes(field))
      ctx.addIssue({
        code: "custom",
        path: [field],
        message: `not allowed on ${input.type} messages`,
      });
  if (
    input.type === "voice" &&
    input.tts &&
    (input.audioData !== undefined || input.audioDuration !== undefined)
  )
    ctx.addIssue({
      code: "custom",
      path: ["tts"],
      message: "give either tts or audioData + audioDuration, not both",
    });
  if (input.content === undefined && !input.tts && (contentRequired || input.type === "text"))
    ctx.addIssue({
      code: "custom",
      path: ["content"],
      message: "content is required unless tts is given",
    });
}

/** A person's message from the apps (CLI, console): captions are optional. */
export const PersonMessageInput = MessageInput.superRefine((input, ctx) =>
  checkMessageType(input, ctx, false),
);

export const AgentSendMessageRequest = MessageInput.extend({
  to: Num.optional(),
  conversationId: z.string().min(1).optional(),
}).superRefine((request, ctx) => {
  if ((request.to === undefined) === (request.conversationId === undefined))
    ctx.addIssue({
      code: "custom",
      path: ["to"],
      message: "give exactly one of to or conversationId",
    });
  checkMessageType(request, ctx);
});
export type AgentSendMessageRequest = z.infer<typeof AgentSendMessageRequest>;

export const AgentSendMessageResponse = z.object({
  message: AgentMessage,
  conversationId: z.string(),
});

export const AgentHistoryQuery = z.strictObject({
  limit: z
    .string()
    .regex(/^\d{1,3}$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().min(1, "must be 1-100").max(100, "must be 1-100"))
    .optional()
    .default(50),
  before: z.string().min(1).optional(),
});
export type AgentHistoryQuery = z.infer<typeof AgentHistoryQuery>;

export const AgentReadRequest = z.strictObject({ messageId: z.string().min(1) });
export const AgentTypingRequest = z.strictObject({ typing: z.boolean().optional().default(true) });
export const AgentReactionRequest = z.strictObject({
  emoji: z.string().min(1, "must be 1-10 characters").max(10, "must be 1-10 characters"),
});
export const Reaction = z.object({ messageId: z.string(), emoji: z.string(), createdAt: DateTime });
export type Reaction = z.infer<typeof Reaction>;

export const AgentConversation = z.object({
  id: z.string(),
  participant: AgentUser,
  grantedScopes: z.array(AgentScope),
  initiation: z.enum(["any", "reply_only"]),
  lastMessageAt: DateTime.nullable(),
  createdAt: DateTime,
});
export type AgentConversation = z.infer<typeof AgentConversation>;

/** `accessDenied` of a masked event. */
export const AccessDenied = z.object({ scope: AgentScope, message: z.string() });
