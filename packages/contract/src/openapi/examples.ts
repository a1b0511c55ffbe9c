import { eventExamples, exampleAction, exampleMessage, exampleUser } from "../examples";

/** Example answers of the operations where one helps most. */
export const responseExamples: Partial<Record<string, unknown>> = {
  sendMessage: { message: exampleMessage, conversationId: exampleMessage.conversationId },
  listMessages: { messages: [exampleMessage], hasMore: false },
  getAction: { action: exampleAction },
  pollUpdates: {
    events: [
      {
        id: "evt_01hx3km1q5r9s3t7v1w5y9z3dd",
        seq: 42,
        type: "message.received",
        ts: exampleMessage.createdAt,
        agentId: "agt_01hx3kn2r6s0t4v8w2y6z0a4ee",
        payload: eventExamples["message.received"],
      },
    ],
    nextSeq: 42,
  },
  getUpdatesCursor: { seq: 42 },
};

export const requestExamples: Partial<Record<string, unknown>> = {
  sendMessage: { to: exampleUser.num, type: "text", content: "Your table is booked." },
  proposeAction: {
    to: exampleUser.num,
    kind: "book_table",
    title: "Book a table for 2 on Friday at 19:30",
    payload: { restaurant: "Luigi's", partySize: 2 },
  },
  putWebhook: { url: "https://agent.example.com/hooks/switchboard" },
  postSelfMessage: { content: "Build 1432 passed" },
};
