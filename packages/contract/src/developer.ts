import { z } from "zod";
import { DateTime, Num } from "./common";
import { DevScope } from "./scopes";

export const DevMe = z.object({
  id: z.string(),
  num: Num,
  displayName: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  userType: z.enum(["person", "business"]),
  scopes: z.array(DevScope),
});
export type DevMe = z.infer<typeof DevMe>;

export const DevSelfMessage = z.object({
  id: z.string(),
  conversationId: z.string(),
  type: z.literal("text"),
  content: z.string(),
  createdAt: DateTime,
});
export type DevSelfMessage = z.infer<typeof DevSelfMessage>;

export const MessageContent = z
  .string()
  .min(1, "must be 1-10000 characters")
  .max(10000, "must be 1-10000 characters");

export const DevPostSelfMessageRequest = z.strictObject({ content: MessageContent });
export type DevPostSelfMessageRequest = z.infer<typeof DevPostSelfMessageRequest>;

export const DevPostSelfMessageResponse = z.object({
  message: DevSelfMessage,
  conversationId: z.string(),
});
export type DevPostSelfMessageResponse = z.infer<typeof DevPostSelfMessageResponse>;
