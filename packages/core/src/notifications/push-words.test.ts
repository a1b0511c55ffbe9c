import { describe, expect, it } from "vitest";
import {
  type CardFacts,
  cardPush,
  closingPush,
  fit,
  heldByQuietHours,
  inQuietHours,
  MAX_PUSH_BYTES,
  messagePush,
  quietHoursEnd,
  reminderPush,
} from "./push-words";

const now = new Date("2026-11-29T10:00:00Z");
const card = (over: Partial<CardFacts> = {}): CardFacts => ({
  actionId: "act_1",
  conversationId: "conv_1",
  agentName: "Household Planner",
  kind: "create_reminder",
  skill: "create_reminder",
  title: "Plumber comes",
  payload: { title: "Plumber comes", reminderTime: "2026-11-30T04:01:00Z" },
  expiresAt: new Date("2026-11-30T10:00:00Z"),
  ...over,
});
const shown = { showText: true, timeZone: "UTC" };

describe("a card's push in words", () => {
  it("says what the agent wants, as on the card, with Approve and Reject", () => {
    const push = cardPush(card(), shown, now);
    expect(push.message).toEqual({
      type: "card",
      id: "act_1",
      title: "Household Planner",
      body: "Household Planner wants to add a reminder: Plumber comes, Mon 30 Nov 04:01",
      url: "/chats/conv_1#card-act_1",
      actions: [
        { action: "approve", title: "Approve" },
        { action: "reject", title: "Reject" },
      ],
      tag: "card:act_1",
    });
    expect(push.urgency).toBe("high");
    expect(push.ttl).toBe(24 * 3600);
    expect(push.topic).toMatch(/^[A-Za-z0-9_-]{1,32}$/);
  });

  it.each([
    [
      "create_task",
      { title: "Pay rent", dueDate: "2026-12-01T09:00:00Z" },
      "add a task: Pay rent, Tue 1 Dec 09:00",
    ],
    [
      "create_event",
      { title: "Dinner", startTime: "2026-12-02T19:30:00Z" },
      "add an event: Dinner, Wed 2 Dec 19:30",
    ],
    ["create_note", { title: "Ideas", content: "x" }, "add a note: Ideas"],
    ["update_task", { id: "rec_1", title: "Pay rent" }, "change the task: Pay rent"],
    ["complete_reminder", { id: "rec_1" }, "mark done the reminder: Plumber comes"],
    ["delete_event", { id: "rec_1" }, "delete the event: Plumber comes"],
  ])("words %s", (skill, payload, words) => {
    const push = cardPush(
      card({
        skill,
        kind: skill,
        payload,
        title: String((payload as Record<string, unknown>).title ?? "Plumber comes"),
      }),
      shown,
      now,
    );
    expect(push.message.body).toBe(`Household Planner wants to ${words}`);
  });

  it("words a custom kind, and writes times in the person's zone", () => {
    expect(
      cardPush(card({ skill: null, kind: "order.place", title: "Two pizzas" }), shown, now).message
        .body,
    ).toBe("Household Planner wants to do this (order place): Two pizzas");
    expect(
      cardPush(card(), { showText: true, timeZone: "Europe/Berlin" }, now).message.body,
    ).toMatch(/Mon 30 Nov 05:01$/);
  });

  it("says only who asks when text is not shown", () => {
    const push = cardPush(card(), { showText: false, timeZone: "UTC" }, now);
    expect(push.message.body).toBe("Household Planner asks for your decision");
    expect(
      messagePush(
        { id: "msg_1", conversationId: "conv_1", agentName: "Planner", text: "secret" },
        { showText: false, timeZone: "UTC" },
      ).message,
    ).toMatchObject({ body: "New message from Planner", tag: "chat:conv_1" });
  });

  it("lives until the card expires; a reminder says when; a closing push has the card's tag", () => {
    expect(cardPush(card(), shown, new Date("2026-11-30T09:59:00Z")).ttl).toBe(60);
    expect(reminderPush(card(), shown, now).message).toMatchObject({
      type: "reminder",
      tag: "card:act_1",
      body: expect.stringMatching(/^Expires Mon 30 Nov 10:00\. Household Planner wants/),
    });
    expect(closingPush(card(), "approved")).toMatchObject({
      message: { type: "close", tag: "card:act_1" },
      urgency: "normal",
    });
  });

  it("fits in 3 KB with the text cut", () => {
    const push = cardPush(card({ title: "é".repeat(5000) }), shown, now);
    expect(Buffer.byteLength(JSON.stringify(push.message))).toBeLessThanOrEqual(MAX_PUSH_BYTES);
    expect(push.message.body.endsWith("…")).toBe(true);
    expect(fit(push)).toEqual(push);
  });
});

describe("quiet hours", () => {
  const quiet = (
    from: string | null,
    to: string | null,
    timeZone = "UTC",
    quietHoldsCards = false,
  ) => ({
    quietFrom: from,
    quietTo: to,
    timeZone,
    quietHoldsCards,
  });

  it("hold inside from–to in the person's zone, across midnight too", () => {
    expect(inQuietHours(quiet("22:00", "07:00"), new Date("2026-11-29T23:30:00Z"))).toBe(true);
    expect(inQuietHours(quiet("22:00", "07:00"), new Date("2026-11-29T06:59:00Z"))).toBe(true);
    expect(inQuietHours(quiet("22:00", "07:00"), new Date("2026-11-29T07:00:00Z"))).toBe(false);
    expect(inQuietHours(quiet("12:00", "14:00"), new Date("2026-11-29T13:00:00Z"))).toBe(true);
    expect(inQuietHours(quiet(null, null), new Date("2026-11-29T13:00:00Z"))).toBe(false);
    // 21:30 UTC is 22:30 in Berlin (winter).
    expect(
      inQuietHours(quiet("22:00", "07:00", "Europe/Berlin"), new Date("2026-11-29T21:30:00Z")),
    ).toBe(true);
    expect(quietHoursEnd(quiet("22:00", "07:00"), new Date("2026-11-29T23:30:00Z"))).toEqual(
      new Date("2026-11-30T07:00:00Z"),
    );
  });

  it("hold everything but cards, cards too when the person says so; never a closing push", () => {
    const night = new Date("2026-11-29T23:30:00Z");
    expect(heldByQuietHours("message", quiet("22:00", "07:00"), night)).toBe(true);
    expect(heldByQuietHours("alert", quiet("22:00", "07:00"), night)).toBe(true);
    expect(heldByQuietHours("card", quiet("22:00", "07:00"), night)).toBe(false);
    expect(heldByQuietHours("card", quiet("22:00", "07:00", "UTC", true), night)).toBe(true);
    expect(heldByQuietHours("close", quiet("22:00", "07:00", "UTC", true), night)).toBe(false);
  });
});
