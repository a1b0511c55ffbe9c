import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentEvent, type AgentEventType, eventIssues, eventRegistry } from "./events";
import { eventExamples, maskedEventExamples } from "./examples";
import { type OperationDef, operationErrors, operations, ops } from "./operations";
import { agentEventTypes } from "./vocabulary";

describe("event registry", () => {
  it("has one envelope in the AgentEvent union per registered type, and every spec type", () => {
    const inUnion = AgentEvent.options.map((option) => option.shape.type.value);
    expect(inUnion).toEqual(agentEventTypes);
    expect([...agentEventTypes].sort()).toEqual(
      [
        "message.received",
        "message.transcript",
        "contact.added",
        "action.approved",
        "action.rejected",
        "action.expired",
        "email.received",
        "task.due",
        "reminder.due",
        "call.ended",
        // Ours, additive (the spec lets types be added): the console's test delivery.
        "webhook.test",
      ].sort(),
    );
  });

  it("accepts each example in its full and wire forms", () => {
    for (const type of agentEventTypes) {
      const example = eventExamples[type];
      expect(eventRegistry[type].full.safeParse(example).error).toBeUndefined();
      expect(eventIssues({ type, payload: example })).toBeNull();
    }
  });

  it("accepts the masked forms on the wire but never as full payloads", () => {
    for (const [type, masked] of Object.entries(maskedEventExamples)) {
      const entry = eventRegistry[type as AgentEventType];
      expect(entry.withheld).toBe("masked");
      expect(entry.masked?.safeParse(masked).error).toBeUndefined();
      expect(entry.payload.safeParse(masked).error).toBeUndefined();
      expect(entry.full.safeParse(masked).success).toBe(false);
    }
  });

  it("masks exactly as the spec words it: no content, and accessDenied names the read scope", () => {
    const received = eventRegistry["message.received"].payload;
    const base = maskedEventExamples["message.received"];
    // Withheld content with the content present, or naming another scope, does not pass.
    expect(received.safeParse({ ...base, message: { id: "msg_1" } }).success).toBe(false);
    expect(
      received.safeParse({ ...base, accessDenied: { scope: "emails:read", message: "x" } }).success,
    ).toBe(false);
    expect(
      eventRegistry["email.received"].payload.safeParse({
        ...maskedEventExamples["email.received"],
        accessDenied: { scope: "messages:read", message: "x" },
      }).success,
    ).toBe(false);
  });

  it("refuses unknown types and payloads that do not match, naming the field", () => {
    expect(eventIssues({ type: "test.event", payload: {} })).toMatch(/unknown event type/);
    expect(
      eventIssues({ type: "contact.added", payload: { user: eventExamples["task.due"].user } }),
    ).toMatch(/scopes/);
  });
});

const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

describe("operation registry", () => {
  it("names each entry by its operationId, with one entry per method and path", () => {
    for (const [key, op] of Object.entries(ops)) expect(op.operationId).toBe(key);
    const routes = operations.map((op) => `${op.method} ${op.path}`);
    expect(new Set(routes).size).toBe(routes.length);
  });

  it("puts each entry under its surface's prefix, with its path parameters read off the path", () => {
    for (const op of operations) {
      expect(op.path.startsWith(op.surface === "agent" ? "/agent/v1/" : "/v1/")).toBe(true);
      expect(Object.keys(op.params.shape)).toEqual(pathParams(op.path));
    }
    expect(ops.removeReaction.params.parse({ messageId: "msg_1", emoji: "👍" })).toEqual({
      messageId: "msg_1",
      emoji: "👍",
    });
  });

  it("gives every operation its success schema and the surface's errors on top of its own", () => {
    for (const op of operations) {
      expect(op.response instanceof z.ZodType || "binary" in op.response).toBe(true);
      const errors = operationErrors(op as OperationDef);
      expect(errors).toContain("unauthorized");
      expect(errors).toContain("rate_limited");
      if (op.body) expect(errors).toContain("validation_error");
    }
    expect(operationErrors(ops.sendMessage)).toEqual(
      expect.arrayContaining([
        "not_a_contact",
        "reply_window_closed",
        "tts_failed",
        "agent_paused",
      ]),
    );
    expect(operationErrors(ops.postSelfMessage)).toContain("key_revoked");
  });
});
