import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoreError } from "../errors";
import { readEvents } from "../events/read-events";
import { createAgent, updateAgentMe } from "../identity/agents";
import { createUser, setUserSuspended } from "../identity/users";
import { getAgentUsage } from "../limits/charge-send";
import { sendAgentMessage } from "../messaging/send-agent-message";
import { sendPersonMessage } from "../messaging/send-person-message";
import { createTestDeps } from "../testing";
import { checkAgentAccess } from "./access";
import {
  addContact,
  addUserContact,
  blockAgent,
  removeContact,
  setGrant,
  setInitiation,
  unblockAgent,
} from "./contacts";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

async function codeOf(promise: Promise<unknown>) {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof CoreError) return error.code;
    throw error;
  }
}

async function setup(privacy: "everyone" | "nobody" | "contacts_of_contacts" = "everyone") {
  const owner = await createUser(t.deps, {});
  const person = await createUser(t.deps, { displayName: "Pat" });
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Agent",
    requestedScopes: ["messages:read", "messages:write", "tasks:read"],
    requestPrivacy: privacy,
  });
  return { owner, person, agent };
}

const send = (agentId: string, to: string) =>
  sendAgentMessage(t.deps, { agentId }, { to, type: "text", content: "hi" });

describe("contacts and consent", () => {
  it("adds through the consent card: grant within requested scopes, one conversation, contact.added", async () => {
    const { person, agent } = await setup();
    expect(await codeOf(addContact(t.deps, person.id, agent.id, ["calls:read"]))).toBe(
      "validation_error",
    );
    const added = await addContact(t.deps, person.num, agent.num, [
      "messages:write",
      "messages:read",
    ]);
    expect(added.grantedScopes).toEqual(["messages:read", "messages:write"]);
    const again = await addContact(t.deps, person.id, agent.id, ["messages:write"]);
    expect(again.conversationId).toBe(added.conversationId);
    const events = (await readEvents(t.deps, agent.id, 0, 10)).events;
    expect(events.map((e) => e.type)).toEqual(["contact.added"]);
    expect(events[0]?.payload).toEqual({
      user: {
        id: person.id,
        num: person.num,
        displayName: "Pat",
        avatarUrl: null,
        userType: "person",
      },
      scopes: ["messages:read", "messages:write"],
    });
  });

  it("keeps existing grants when the agent later changes its requested scopes", async () => {
    const { person, agent } = await setup();
    await addContact(t.deps, person.id, agent.id, ["messages:write", "tasks:read"]);
    await updateAgentMe(t.deps, agent.id, { requestedScopes: ["messages:write"] });
    const access = await checkAgentAccess(
      t.deps,
      agent.id,
      { to: person.num },
      { scope: "tasks:read" },
    );
    expect(access.grantedScopes).toEqual(["messages:write", "tasks:read"]);
    expect(await codeOf(setGrant(t.deps, person.id, agent.id, ["tasks:read"]))).toBe(
      "validation_error",
    );
  });

  it("respects request privacy", async () => {
    const nobody = await setup("nobody");
    expect(await codeOf(addContact(t.deps, nobody.person.id, nobody.agent.id, []))).toBe(
      "forbidden",
    );
    expect(await codeOf(addContact(t.deps, nobody.owner.id, nobody.agent.id, []))).toBe("ok");

    const { owner, person, agent } = await setup("contacts_of_contacts");
    expect(await codeOf(addContact(t.deps, person.id, agent.id, []))).toBe("forbidden");
    await addContact(t.deps, owner.id, agent.id, []);
    await addUserContact(t.deps, person.id, owner.id);
    expect(await codeOf(addContact(t.deps, person.id, agent.id, []))).toBe("ok");
  });
});

describe("the access check", () => {
  it("refuses in order: suspended, blocked, not a contact, scope, reply window; counts refused sends", async () => {
    const { person, agent } = await setup();
    expect(await codeOf(send(agent.id, "999-999-998"))).toBe("not_found");
    expect(await codeOf(send(agent.id, person.num))).toBe("not_a_contact");
    await addContact(t.deps, person.id, agent.id, ["messages:read"]);
    const scope = await send(agent.id, person.num).catch((e) => e);
    expect([scope.code, scope.details.scope]).toEqual(["scope_not_granted", "messages:write"]);
    await setGrant(t.deps, person.id, agent.id, ["messages:read", "messages:write"]);
    expect(await codeOf(send(agent.id, person.num))).toBe("ok");

    await blockAgent(t.deps, person.id, agent.id);
    expect(await codeOf(send(agent.id, person.num))).toBe("blocked");
    await setUserSuspended(t.deps, person.id, true);
    expect(await codeOf(send(agent.id, person.num))).toBe("recipient_suspended");
    await setUserSuspended(t.deps, person.id, false);
    await unblockAgent(t.deps, person.id, agent.id);

    await removeContact(t.deps, person.id, agent.id);
    expect(await codeOf(send(agent.id, person.num))).toBe("not_a_contact");
    expect((await getAgentUsage(t.deps, agent.id)).usage).toMatchObject({
      messages: 1,
      refused: 4,
    });
  });

  it("opens a replies-only person's window for 24 h after their own last message", async () => {
    t.clock.set("2026-07-01T10:00:00Z");
    const { person, agent } = await setup();
    await addContact(t.deps, person.id, agent.id, ["messages:read", "messages:write"]);
    await setInitiation(t.deps, person.id, agent.id, "reply_only");
    expect(await codeOf(send(agent.id, person.num))).toBe("reply_window_closed");
    const history = await checkAgentAccess(
      t.deps,
      agent.id,
      { to: person.num },
      { scope: "messages:read" },
    );
    expect(history.person.id).toBe(person.id);

    await sendPersonMessage(t.deps, person.id, agent.id, { type: "text", content: "hello?" });
    t.clock.advance(24 * 3600_000 - 1000);
    expect(await codeOf(send(agent.id, person.num))).toBe("ok");
    t.clock.advance(2000);
    expect(await codeOf(send(agent.id, person.num))).toBe("reply_window_closed");
    await setInitiation(t.deps, person.id, agent.id, "any");
    expect(await codeOf(send(agent.id, person.num))).toBe("ok");
  });

  it("refuses a conversation the agent is not in", async () => {
    const a = await setup();
    const b = await setup();
    const { conversationId } = await addContact(t.deps, a.person.id, a.agent.id, [
      "messages:write",
    ]);
    expect(
      await codeOf(
        checkAgentAccess(t.deps, b.agent.id, { conversationId }, { scope: "messages:write" }),
      ),
    ).toBe("forbidden");
    expect(
      await codeOf(
        checkAgentAccess(
          t.deps,
          b.agent.id,
          { conversationId: "cnv_nope" },
          { scope: "messages:write" },
        ),
      ),
    ).toBe("not_found");
  });
});
