import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addContact } from "../contacts/contacts";
import { createAgent, pauseAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { createTestDeps } from "../testing";
import { describeChatAgent } from "./describe-chat-agent";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

describe("describeChatAgent", () => {
  it("gives a person's chat header the agent's bio, whether it is paused, and its owner", async () => {
    const owner = await createUser(t.deps, { displayName: "Olga Owner" });
    const agent = await createAgent(t.deps, {
      ownerId: owner.id,
      displayName: "Helper",
      bio: "Plans your week",
    });
    const person = await createUser(t.deps, {});
    const { conversationId } = await addContact(t.deps, person.id, agent.id, []);

    expect(await describeChatAgent(t.deps, person.id, conversationId)).toEqual({
      bio: "Plans your week",
      paused: false,
      owner: { displayName: "Olga Owner" },
    });
    await pauseAgent(t.deps, agent.id);
    expect(await describeChatAgent(t.deps, person.id, conversationId)).toMatchObject({
      paused: true,
    });
    const stranger = await createUser(t.deps, {});
    await expect(describeChatAgent(t.deps, stranger.id, conversationId)).rejects.toMatchObject({
      code: "not_found",
    });
  });
});
