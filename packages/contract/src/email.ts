import { z } from "zod";
import { DateTime, Num, oneLine, pageQuery } from "./common";
import { MAX_CONTENT_CHARS } from "./messages";
import { AgentScope } from "./scopes";
import { AgentUser } from "./users";

/**
 * Email: the agent's own inbox, an internal threaded surface between users (no SMTP). The spec
 * names only some fields and leaves shapes and bounds open; these are ours, documented here and
 * in the OpenAPI document: a subject of 1-200 characters on one line, an email of 1-10000
 * characters, at most MAX_EMAIL_RECIPIENTS recipients when a person writes to several (a group).
 */

export const MAX_SUBJECT_CHARS = 200;
/** A group thread: the sender and at most this many others. */
export const MAX_EMAIL_RECIPIENTS = 20;

export const EmailSubject = z
  .string()
  .max(MAX_SUBJECT_CHARS, `must be at most ${MAX_SUBJECT_CHARS} characters`)
  .refine((value) => value.trim().length > 0, "must not be blank")
  .refine(oneLine, "must be one line");

export const EmailContent = z
  .string()
  .min(1, `must be 1-${MAX_CONTENT_CHARS} characters`)
  .max(MAX_CONTENT_CHARS, `must be 1-${MAX_CONTENT_CHARS} characters`)
  .refine((value) => value.trim().length > 0, "must not be blank");

/** One email of a thread, as its sender wrote it. */
export const EmailMessage = z.object({
  id: z.string(),
  threadId: z.string(),
  senderId: z.string(),
  senderNum: z.string(),
  content: z.string(),
  createdAt: DateTime,
});
export type EmailMessage = z.infer<typeof EmailMessage>;

/** Why a person's email is withheld from the agent. */
export const EmailAccessDenied = z.object({ scope: z.literal("emails:read"), message: z.string() });
export type EmailAccessDenied = z.infer<typeof EmailAccessDenied>;

/**
 * An email as the Agent API shows it. The person's email without their `emails:read` has
 * `content: null` and `accessDenied`; the agent's own are always readable.
 */
export const AgentEmailMessage = EmailMessage.extend({
  content: z.string().nullable(),
  accessDenied: EmailAccessDenied.optional(),
});
export type AgentEmailMessage = z.infer<typeof AgentEmailMessage>;

/** One of the agent's 1:1 threads (group threads are never listed). */
export const AgentEmailThread = z.object({
  id: z.string(),
  /** Null without the person's `emails:read` when the person started the thread. */
  subject: z.string().nullable(),
  participant: AgentUser,
  /** What the participant grants now; `[]` once they removed the agent. */
  grantedScopes: z.array(AgentScope),
  /** The person's emails after the agent's read mark (`GET /emails/{threadId}` sets it). */
  unreadCount: z.number().int(),
  lastMessage: AgentEmailMessage.nullable(),
  /** Who wrote the first email: the agent's id or the participant's (null if that account is gone). */
  startedById: z.string().nullable(),
  lastMessageAt: DateTime,
  createdAt: DateTime,
});
export type AgentEmailThread = z.infer<typeof AgentEmailThread>;

/** `GET /agent/v1/emails`: a page, newest activity first; `before` a thread id. */
export const AgentEmailsQuery = pageQuery("a thread id");

/** The agent's 1:1 threads, newest activity first, one page; `hasMore`: older ones follow. */
export const AgentEmailsResponse = z.object({
  threads: z.array(AgentEmailThread),
  hasMore: z.boolean(),
});
export type AgentEmailsResponse = z.infer<typeof AgentEmailsResponse>;

/** `POST /agent/v1/emails`: a new thread with the person `to`. */
export const AgentSendEmailRequest = z.strictObject({
  to: Num,
  subject: EmailSubject,
  content: EmailContent,
});
export type AgentSendEmailRequest = z.infer<typeof AgentSendEmailRequest>;

/** The new thread (read by the agent: it wrote the only email) and its first email. */
export const AgentSendEmailResponse = z.object({
  thread: AgentEmailThread,
  message: AgentEmailMessage,
});
export type AgentSendEmailResponse = z.infer<typeof AgentSendEmailResponse>;

/**
 * `GET /agent/v1/emails/{threadId}`: the newest `limit` emails (`before`: an email id of the
 * thread, to page back from it), oldest first within the page.
 */
export const AgentEmailThreadQuery = pageQuery("an email id");

/** The thread and one page of its emails, oldest first; `hasMore`: older emails exist. */
export const AgentEmailThreadResponse = z.object({
  thread: AgentEmailThread,
  messages: z.array(AgentEmailMessage),
  hasMore: z.boolean(),
});
export type AgentEmailThreadResponse = z.infer<typeof AgentEmailThreadResponse>;

/** `POST /agent/v1/emails/{threadId}/messages`: a reply in the thread. */
export const AgentReplyEmailRequest = z.strictObject({ content: EmailContent });
export type AgentReplyEmailRequest = z.infer<typeof AgentReplyEmailRequest>;

export const AgentReplyEmailResponse = z.object({
  message: AgentEmailMessage,
  threadId: z.string(),
});
export type AgentReplyEmailResponse = z.infer<typeof AgentReplyEmailResponse>;

// ---- What a person's apps (console, CLI) show and send. ----

/**
 * A person writes an email: a reply in `threadId`, or a new thread to `to` (one recipient: a
 * 1:1 thread; several: a group thread) with a `subject`. `to` holds numbers (`800-` for agents)
 * or ids. With `threadId`, `to` may be given and must name people of that thread.
 */
export const PersonEmailInput = z
  .strictObject({
    to: z
      .array(z.string().trim().min(1, "must be a number or id"))
      .max(MAX_EMAIL_RECIPIENTS, `at most ${MAX_EMAIL_RECIPIENTS} recipients`)
      .optional(),
    threadId: z.string().min(1).optional(),
    subject: EmailSubject.optional(),
    content: EmailContent,
  })
  .superRefine((input, ctx) => {
    if (input.threadId === undefined) {
      if (!input.to?.length)
        ctx.addIssue({ code: "custom", path: ["to"], message: "name at least one recipient" });
      if (input.subject === undefined)
        ctx.addIssue({
          code: "custom",
          path: ["subject"],
          message: "a new thread needs a subject",
        });
    } else if (input.subject !== undefined)
      ctx.addIssue({
        code: "custom",
        path: ["subject"],
        message: "a reply keeps its thread's subject",
      });
  });
export type PersonEmailInput = z.input<typeof PersonEmailInput>;

export const PersonEmailSent = z.object({ threadId: z.string(), message: EmailMessage });
export type PersonEmailSent = z.infer<typeof PersonEmailSent>;

/** One of a person's threads, with agents or people, as their inbox lists it. */
export const PersonEmailThread = z.object({
  id: z.string(),
  subject: z.string(),
  isGroup: z.boolean(),
  /** Everyone else in the thread. */
  participants: z.array(AgentUser),
  /** Emails from others after the person's read mark. */
  unreadCount: z.number().int(),
  lastMessage: EmailMessage.nullable(),
  startedById: z.string().nullable(),
  lastMessageAt: DateTime,
  createdAt: DateTime,
});
export type PersonEmailThread = z.infer<typeof PersonEmailThread>;

/** One thread opened in a person's inbox: its newest emails, oldest first; `hasMore`: older exist. */
export const PersonEmailThreadPage = z.object({
  thread: PersonEmailThread,
  messages: z.array(EmailMessage),
  hasMore: z.boolean(),
});
export type PersonEmailThreadPage = z.infer<typeof PersonEmailThreadPage>;
