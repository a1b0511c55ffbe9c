import { blockAgent, removeContact, sendPersonMessage, unblockAgent } from "@switchboard/core";
import { agentApi, deps, newContact } from "../support/fixtures";
import { expectError } from "../support/http";
import { expect, test } from "../support/test";

test("pages backwards with before and limit, oldest first within a page, hasMore", async ({
  request,
}) => {
  const { auth, person, agent, conversationId } = await newContact();
  const api = agentApi(request, auth);
  const ids: string[] = [];
  for (const n of [1, 2, 3, 4, 5]) {
    if (n % 2 === 0) {
      const { message } = await sendPersonMessage(deps(), person.id, agent.id, {
        type: "text",
        content: `m${n}`,
      });
      ids.push(message.id);
    } else
      ids.push(
        (await (await api.send({ conversationId, type: "text", content: `m${n}` })).json()).message
          .id,
      );
  }
  const page = async (query: string) => {
    const response = await api.get(`/conversations/${conversationId}/messages${query}`);
    expect(response.status(), await response.text()).toBe(200);
    const body = await response.json();
    return [body.messages.map((m: { content: string }) => m.content), body.hasMore];
  };
  expect(await page("")).toEqual([["m1", "m2", "m3", "m4", "m5"], false]);
  expect(await page("?limit=2")).toEqual([["m4", "m5"], true]);
  expect(await page(`?limit=2&before=${ids[3]}`)).toEqual([["m2", "m3"], true]);
  expect(await page(`?limit=2&before=${ids[1]}`)).toEqual([["m1"], false]);
  expect(await page(`?before=${ids[0]}`)).toEqual([[], false]);

  const newest = await (await api.get(`/conversations/${conversationId}/messages?limit=1`)).json();
  expect(newest.messages[0]).toEqual({
    id: ids[4],
    conversationId,
    senderId: agent.id,
    senderNum: agent.num,
    type: "text",
    content: "m5",
    replyToId: null,
    agentActionId: null,
    createdAt: expect.any(String),
  });
  const fromPerson = await (
    await api.get(`/conversations/${conversationId}/messages?limit=2`)
  ).json();
  expect(fromPerson.messages[0]).toMatchObject({ senderId: person.id, senderNum: person.num });
});

test("query validation: limit 1-100, before a message of this conversation", async ({
  request,
}) => {
  const { auth, conversationId } = await newContact();
  const api = agentApi(request, auth);
  for (const query of [
    "limit=0",
    "limit=101",
    "limit=-3",
    "limit=ten",
    "limit=1.5",
    "page=2",
    "before=",
  ])
    await expectError(
      await api.get(`/conversations/${conversationId}/messages?${query}`),
      400,
      "validation_error",
    );
  expect((await api.get(`/conversations/${conversationId}/messages?limit=100`)).status()).toBe(200);
  await expectError(
    await api.get(`/conversations/${conversationId}/messages?before=msg_unknown`),
    404,
    "not_found",
  );
});

test("refusals: 404 unknown, 403 forbidden, scope_not_granted (messages:read), blocked, removed", async ({
  request,
}) => {
  const { auth, person, agent, conversationId } = await newContact();
  const api = agentApi(request, auth);
  await expectError(await api.get("/conversations/cnv_unknown/messages"), 404, "not_found");
  const other = await newContact();
  await expectError(
    await api.get(`/conversations/${other.conversationId}/messages`),
    403,
    "forbidden",
  );

  const writeOnly = await newContact({ grant: ["messages:write"] });
  const denied = await expectError(
    await agentApi(request, writeOnly.auth).get(
      `/conversations/${writeOnly.conversationId}/messages`,
    ),
    403,
    "scope_not_granted",
  );
  expect(denied.scope).toBe("messages:read");

  await blockAgent(deps(), person.id, agent.id);
  await expectError(await api.get(`/conversations/${conversationId}/messages`), 403, "blocked");
  await unblockAgent(deps(), person.id, agent.id);
  expect((await api.get(`/conversations/${conversationId}/messages`)).status()).toBe(200);
  await removeContact(deps(), person.id, agent.id);
  await expectError(
    await api.get(`/conversations/${conversationId}/messages`),
    403,
    "not_a_contact",
  );
});
