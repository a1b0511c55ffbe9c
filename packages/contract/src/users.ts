import { z } from "zod";
import { DateTime, HttpsUrl, Num, oneLine } from "./common";
import { AgentScope } from "./scopes";

export const UserType = z.enum(["person", "business", "ai", "agent"]);
export type UserType = z.infer<typeof UserType>;

export const AgentUser = z.object({
  id: z.string(),
  num: Num,
  displayName: z.string().nullable(),
  avatarUrl: z.string().nullable(),
  userType: UserType,
});
export type AgentUser = z.infer<typeof AgentUser>;

export const RequestPrivacy = z.enum(["everyone", "nobody", "contacts_of_contacts"]);
export type RequestPrivacy = z.infer<typeof RequestPrivacy>;

export const AgentMe = AgentUser.extend({
  bio: z.string().nullable(),
  ownerId: z.string().nullable(),
  requestPrivacy: RequestPrivacy,
  requestedScopes: z.array(AgentScope),
  createdAt: DateTime,
});
export type AgentMe = z.infer<typeof AgentMe>;

export const DisplayName = z
  .string()
  .trim()
  .min(1, "must be 1-50 characters")
  .max(50, "must be 1-50 characters")
  .refine(oneLine, "must be one line");

export const Bio = z.string().max(500, "must be at most 500 characters");

/**
 * `PATCH /agent/v1/me`. At least one field. `bio` and `avatarUrl` also accept null, which clears
 * them. Unknown fields are refused rather than silently ignored.
 */
export const AgentUpdateMeRequest = z
  .strictObject({
    displayName: DisplayName.optional(),
    bio: Bio.nullable().optional(),
    avatarUrl: HttpsUrl.nullable().optional(),
    requestPrivacy: RequestPrivacy.optional(),
    requestedScopes: z.array(AgentScope).optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    message: "give at least one of displayName, bio, avatarUrl, requestPrivacy, requestedScopes",
  });
export type AgentUpdateMeRequest = z.infer<typeof AgentUpdateMeRequest>;
