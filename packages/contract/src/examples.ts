import type { AgentAction } from "./actions";
import type { AgentEvent, AgentEventType, EventPayload, NewAgentEvent } from "./events";
import type { AgentMessage } from "./messages";
import type { AgentUser } from "./users";

/**
 * Example values of the wire shapes, for the OpenAPI document and the reference page, and for
 * tests that need a valid event of any kind.
 */

export const exampleUser: AgentUser = {
  id: "usr_01hx3k9d2b7v5qz8w4n6m1c0aa",
  num: "412-555-019",
  displayName: "Ada",
  avatarUrl: null,
  userType: "person",
};

export const exampleMessage: AgentMessage = {
  id: "msg_01hx3kb2f7q9r8s6t4v2w0y1zz",
  conversationId: "cnv_01hx3ka1c5d7e9f1g3h5j7k9mm",
  senderId: exampleUser.id,
  senderNum: exampleUser.num,
  type: "text",
  content: "Can you book the table for Friday?",
  replyToId: null,
  agentActionId: null,
  createdAt: "2026-05-01T09:00:00.000Z",
};

export const exampleAction: AgentAction = {
  id: "act_01hx3kc4g8h2j6k0m4n8p2r6tt",
  conversationId: exampleMessage.conversationId,
  userId: exampleUser.id,
  kind: "book_table",
  title: "Book a table for 2 on Friday at 19:30",
  description: null,
  payload: { restaurant: "Luigi's", partySize: 2 },
  editedPayload: null,
  state: "approved",
  expiresAt: "2026-05-02T09:00:00.000Z",
  createdAt: "2026-05-01T09:01:00.000Z",
  resolvedAt: "2026-05-01T09:05:00.000Z",
  skill: null,
  execution: null,
};

const withheld = <S extends "messages:read" | "emails:read">(scope: S) => ({
  scope,
  message: `Ada has not granted ${scope}, so the content is withheld`,
});

/** One example payload per event type (the full form), and the masked form where there is one. */
export const eventExamples: { [T in AgentEventType]: EventPayload<T> } = {
  "message.received": {
    conversationId: exampleMessage.conversationId,
    from: exampleUser,
    message: exampleMessage,
  },
  "message.transcript": {
    conversationId: exampleMessage.conversationId,
    messageId: exampleMessage.id,
    from: exampleUser,
    transcript: "Can you book the table for Friday?",
  },
  "contact.added": { user: exampleUser, scopes: ["messages:read", "messages:write"] },
  "action.approved": { conversationId: exampleAction.conversationId, action: exampleAction },
  "action.rejected": {
    conversationId: exampleAction.conversationId,
    action: {
      ...exampleAction,
      state: "rejected",
      rejection: { reason: "Friday is full; try Saturday", choice: "wrong_details" },
    },
  },
  "action.expired": {
    conversationId: exampleAction.conversationId,
    action: { ...exampleAction, state: "expired", resolvedAt: exampleAction.expiresAt },
  },
  "email.received": {
    threadId: "eth_01hx3kd6j0k4m8n2p6r0s4v8xx",
    subject: "Friday dinner",
    from: exampleUser,
    email: {
      id: "eml_01hx3kd7k1m5n9p3r7s1t5w9yy",
      threadId: "eth_01hx3kd6j0k4m8n2p6r0s4v8xx",
      senderId: exampleUser.id,
      senderNum: exampleUser.num,
      content: "See you at 19:30.",
      createdAt: "2026-05-01T09:10:00.000Z",
    },
  },
  "task.due": {
    user: exampleUser,
    task: {
      id: "tsk_01hx3kf8m2n6p0r4s8t2v6x0aa",
      title: "Call the bank",
      description: null,
      dueDate: "2026-05-01T15:00:00.000Z",
      status: "open",
      priority: "normal",
      createdAt: "2026-04-28T10:00:00.000Z",
      completedAt: null,
    },
  },
  "reminder.due": {
    user: exampleUser,
    reminder: {
      id: "rem_01hx3kg9n3p7r1s5t9v3w7y1bb",
      title: "Water the plants",
      reminderTime: "2026-05-01T18:00:00.000Z",
      isCompleted: false,
      createdAt: "2026-04-30T08:00:00.000Z",
    },
  },
  "call.ended": {
    callId: "call_01hx3kh0p4r8s2t6v0w4y8z2cc",
    user: exampleUser,
    participants: [exampleUser],
    isGroup: false,
    startedAt: "2026-05-01T12:00:00.000Z",
    endedAt: "2026-05-01T12:04:10.000Z",
    duration: 250,
    summary: "Ada asked for a table for two on Friday.",
    transcript: "Ada: Hi, could you book a table for Friday?",
    transcriptTruncated: false,
  },
  "webhook.test": { test: true, message: "A test event sent from the Switchboard console" },
};

/** The masked forms, as an agent receives them without the person's read scope. */
export const maskedEventExamples = {
  "message.received": {
    conversationId: exampleMessage.conversationId,
    from: exampleUser,
    message: null,
    accessDenied: withheld("messages:read"),
  },
  "message.transcript": {
    conversationId: exampleMessage.conversationId,
    messageId: exampleMessage.id,
    from: exampleUser,
    transcript: null,
    accessDenied: withheld("messages:read"),
  },
  "email.received": {
    threadId: "eth_01hx3kd6j0k4m8n2p6r0s4v8xx",
    subject: null,
    from: exampleUser,
    email: null,
    accessDenied: withheld("emails:read"),
  },
} satisfies { [T in AgentEventType]?: EventPayload<T> };

/**
 * A valid event for tests that need some event of an agent: a `contact.added` whose user's
 * display name carries `tag`, so a test can tell its events apart (`eventTag`).
 */
export function taggedEvent(agentId: string, tag: string | number = ""): NewAgentEvent {
  const user = { ...exampleUser, displayName: `tag:${tag}` };
  return { agentId, type: "contact.added", payload: { user, scopes: [] } };
}

/** The tag of an event made by `taggedEvent` (undefined for any other event). */
export function eventTag(event: AgentEvent): string | undefined {
  if (event.type !== "contact.added") return undefined;
  return event.payload.user.displayName?.replace(/^tag:/, "");
}
