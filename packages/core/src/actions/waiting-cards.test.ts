import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addContact } from "../contacts/contacts";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { createTestDeps } from "../testing";
import { decideAction } from "./decide-action";
import { proposeAction } from "./propose-action";
import { countWaitingCards, listWaitingCards } from "./waiting-cards";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const minutes = (n: number) => new Date(t.clock.now().getTime() + n * 60_000).toISOString();

async function chatWith(personId: string, name: string) {
  const agent = await createAgent(t.deps, {
    ownerId: personId,
    displayName: name,
    requestedScopes: ["messages:write"],
  });
  const { conversationId } = await addContact(t.deps, personId, agent.id, ["messages:write"]);
  const propose = async (title: string, expiresInMinutes: number) =>
    (
      await proposeAction(
        t.deps,
        { agentId: agent.id },
        { conversationId, kind: "custom.ask", title, expiresAt: minutes(expiresInMinutes) },
      )
    ).action;
  return { agent, conversationId, propose };
}

describe("cards waiting for a person", () => {
  it("lists every pending card across chats, the one expiring first first, with its agent", async () => {
    const person = await createUser(t.deps, {});
    const other = await createUser(t.deps, {});
    const planner = await chatWith(person.id, "Planner");
    const shopper = await chatWith(person.id, "Shopper");
    const late = await planner.propose("Late", 120);
    const soon = await shopper.propose("Soon", 5);
    const middle = await planner.propose("Middle", 30);
    const decided = await shopper.propose("Decided", 10);
    await decideAction(t.deps, { userRef: person.id, actionId: decided.id, approve: false });
    // Someone else's card is not theirs to see.
    await (await chatWith(other.id, "Elsewhere")).propose("Not yours", 1);

    const waiting = await listWaitingCards(t.deps, person.id);
    expect(waiting.cards.map((card) => card.action.title)).toEqual(["Soon", "Middle", "Late"]);
    expect(waiting.count).toBe(3);
    expect(waiting.nextExpiresAt).toBe(soon.expiresAt);
    const [first] = waiting.cards;
    expect(first?.agent).toMatchObject({ id: shopper.agent.id, displayName: "Shopper" });
    expect(first?.action).toMatchObject({ id: soon.id, conversationId: shopper.conversationId });
    expect(first?.messageId).toMatch(/^msg_/);
    expect(await countWaitingCards(t.deps, person.id)).toEqual({
      count: 3,
      nextExpiresAt: soon.expiresAt,
    });
    expect(late.state).toBe("pending");
    expect(middle.state).toBe("pending");
  });

  it("leaves out a card past its time that the timer has not expired yet", async () => {
    const person = await createUser(t.deps, {});
    const chat = await chatWith(person.id, "Ticker");
    await chat.propose("Short", 2);
    const long = await chat.propose("Long", 60);
    t.clock.advance(3 * 60_000);
    const waiting = await listWaitingCards(t.deps, person.id);
    expect(waiting.cards.map((card) => card.action.id)).toEqual([long.id]);
    expect(await countWaitingCards(t.deps, person.id)).toEqual({
      count: 1,
      nextExpiresAt: long.expiresAt,
    });
  });

  it("keeps the cards decided or expired since the list was opened, in their place", async () => {
    const person = await createUser(t.deps, {});
    const chat = await chatWith(person.id, "Keeper");
    const before = await chat.propose("Decided before", 5);
    await decideAction(t.deps, { userRef: person.id, actionId: before.id, approve: true });
    t.clock.advance(1000);
    const opened = t.clock.now();
    const first = await chat.propose("First", 10);
    const second = await chat.propose("Second", 20);
    const lapsing = await chat.propose("Lapsing", 2);
    t.clock.advance(1000);
    await decideAction(t.deps, { userRef: person.id, actionId: first.id, approve: false });
    // Past its time (the timer has not run yet): no longer waiting, still shown.
    t.clock.advance(2 * 60_000);
    const waiting = await listWaitingCards(t.deps, person.id, { decidedSince: opened });
    expect(waiting.cards.map((card) => [card.action.title, card.action.state])).toEqual([
      ["Lapsing", "pending"],
      ["First", "rejected"],
      ["Second", "pending"],
    ]);
    expect(waiting.cards[0]?.action.id).toBe(lapsing.id);
    expect(waiting.cards[1]?.decision).toMatchObject({ outcome: "rejected", via: "cli" });
    expect(waiting.cards[2]?.decision).toBeNull();
    expect(waiting.count).toBe(1);
    expect(waiting.nextExpiresAt).toBe(second.expiresAt);
  });

  it("says none wait with a zero count and no expiry", async () => {
    const person = await createUser(t.deps, {});
    expect(await listWaitingCards(t.deps, person.id)).toEqual({
      count: 0,
      nextExpiresAt: null,
      cards: [],
    });
  });
});
