import {
  blockAgent,
  listPersonChatRows,
  listPersonMessages,
  sendPersonMessage,
  setInitiation,
} from "@switchboard/core";
import { agentApi, deps, newAgent, newContact } from "../support/fixtures";
import { expectError } from "../support/http";
import { expect, test } from "../support/test";

async function chatWithMessage(grant?: ("messages:read" | "messages:write")[]) {
  const setup = await newContact(grant ? { grant } : {});
  const { message } = await sendPersonMessage(deps(), setup.person.id, setup.agent.id, {
    type: "text",
    content: "hi there",
  });
  return { ...setup, message };
}

test.describe("read receipts", () => {
  test("marks read up to a message; the person sees it", async ({ request }) => {
    const { auth, person, conversationId, message } = await chatWithMessage();
    const api = agentApi(request, auth);
    const response = await api.post(`/conversations/${conversationId}/read`, {
      messageId: message.id,
    });
    expect(response.status()).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    const view = await listPersonMessages(deps(), person.id, conversationId);
    expect(view.readUpTo.agent).toBe(message.id);
    expect(view.messages.map((m) => m.readByOther)).toEqual([true]);
  });

  test("validates its body and refuses with the spec's codes", async ({ request }) => {
    const { auth, person, agent, conversationId, message } = await chatWithMessage([
      "messages:read",
    ]);
    const api = agentApi(request, auth);
    const read = (body: unknown, id = conversationId) =>
      api.post(`/conversations/${id}/read`, body);
    await expectError(await read({}), 400, "validation_error");
    await expectError(await read({ messageId: message.id, at: "now" }), 400, "validation_error");
    await expectError(await read({ messageId: 42 }), 400, "validation_error");
    const scope = await expectError(
      await read({ messageId: message.id }),
      403,
      "scope_not_granted",
    );
    expect(scope.scope).toBe("messages:write");
    const open = await chatWithMessage();
    const openApi = agentApi(request, open.auth);
    await expectError(
      await openApi.post(`/conversations/${open.conversationId}/read`, {
        messageId: "msg_unknown",
      }),
      404,
      "not_found",
    );
    await expectError(
      await openApi.post(`/conversations/${open.conversationId}/read`, { messageId: message.id }),
      404,
      "not_found",
    );
    await expectError(await read({ messageId: message.id }, "cnv_unknown"), 404, "not_found");
    await expectError(
      await openApi.post(`/conversations/${conversationId}/read`, { messageId: message.id }),
      403,
      "forbidden",
    );
    await blockAgent(deps(), person.id, agent.id);
    await expectError(await read({ messageId: message.id }), 403, "blocked");
  });

  test("is not bound by a replies-only person's window", async ({ request }) => {
    const { auth, person, agent, conversationId, message } = await chatWithMessage();
    await setInitiation(deps(), person.id, agent.id, "reply_only");
    const api = agentApi(request, auth);
    // A send needs the window (open now: they just wrote); receipts and typing never do.
    expect(
      (await api.post(`/conversations/${conversationId}/read`, { messageId: message.id })).status(),
    ).toBe(200);
    expect((await api.post(`/conversations/${conversationId}/typing`)).status()).toBe(200);
  });
});

test.describe("typing", () => {
  test("no body shows typing, false clears it; the person sees both", async ({ request }) => {
    const { auth, person, conversationId } = await chatWithMessage();
    const api = agentApi(request, auth);
    const typingUntil = async () =>
      (await listPersonChatRows(deps(), person.id)).chats[0]?.agentTypingUntil ?? null;
    const started = Date.now();
    const on = await api.post(`/conversations/${conversationId}/typing`);
    expect([on.status(), await on.json()]).toEqual([200, { ok: true }]);
    const until = await typingUntil();
    expect(until).not.toBeNull();
    const shownFor = new Date(until ?? 0).getTime() - started;
    expect(shownFor).toBeGreaterThan(5000);
    expect(shownFor).toBeLessThan(12_000);
    expect(
      (await api.post(`/conversations/${conversationId}/typing`, { typing: false })).status(),
    ).toBe(200);
    expect(await typingUntil()).toBeNull();
    expect(
      (await api.post(`/conversations/${conversationId}/typing`, { typing: true })).status(),
    ).toBe(200);
    expect(await typingUntil()).not.toBeNull();
    // Sending a message ends it.
    expect((await api.send({ conversationId, type: "text", content: "done" })).status()).toBe(201);
    expect(await typingUntil()).toBeNull();
  });

  test("validates and refuses", async ({ request }) => {
    const { auth, conversationId } = await chatWithMessage(["messages:read"]);
    const api = agentApi(request, auth);
    await expectError(
      await api.post(`/conversations/${conversationId}/typing`, { typing: "yes" }),
      400,
      "validation_error",
    );
    await expectError(
      await api.post(`/conversations/${conversationId}/typing`, { typing: true, x: 1 }),
      400,
      "validation_error",
    );
    const scope = await expectError(
      await api.post(`/conversations/${conversationId}/typing`),
      403,
      "scope_not_granted",
    );
    expect(scope.scope).toBe("messages:write");
    await expectError(await api.post("/conversations/cnv_unknown/typing"), 404, "not_found");
    const stranger = await newAgent();
    await expectError(
      await agentApi(request, stranger.auth).post(`/conversations/${conversationId}/typing`),
      403,
      "forbidden",
    );
  });
});

test.describe("reactions", () => {
  test("adds (201, once per emoji) and removes by URL-encoded emoji; the person sees them", async ({
    request,
  }) => {
    const { auth, person, agent, conversationId, message } = await chatWithMessage();
    const api = agentApi(request, auth);
    const added = await api.post(`/messages/${message.id}/reactions`, { emoji: "👍🏽" });
    expect(added.status()).toBe(201);
    const body = await added.json();
    expect(body).toEqual({
      reaction: { messageId: message.id, emoji: "👍🏽", createdAt: expect.any(String) },
    });
    const again = await api.post(`/messages/${message.id}/reactions`, { emoji: "👍🏽" });
    expect([again.status(), await again.json()]).toEqual([201, body]);
    expect((await api.post(`/messages/${message.id}/reactions`, { emoji: "🎉" })).status()).toBe(
      201,
    );
    const emojis = async () =>
      (await listPersonMessages(deps(), person.id, conversationId)).messages[0]?.reactions.map(
        (r) => [r.userId, r.emoji],
      );
    expect(await emojis()).toEqual([
      [agent.id, "👍🏽"],
      [agent.id, "🎉"],
    ]);
    const removed = await api.delete(
      `/messages/${message.id}/reactions/${encodeURIComponent("👍🏽")}`,
    );
    expect([removed.status(), await removed.json()]).toEqual([200, { ok: true }]);
    expect(await emojis()).toEqual([[agent.id, "🎉"]]);
    // Removing what is not there is fine.
    expect(
      (
        await api.delete(`/messages/${message.id}/reactions/${encodeURIComponent("👍🏽")}`)
      ).status(),
    ).toBe(200);
    // The agent's own message can be reacted to as well.
    const mine = (await (await api.send({ conversationId, type: "text", content: "me" })).json())
      .message;
    expect((await api.post(`/messages/${mine.id}/reactions`, { emoji: "✅" })).status()).toBe(201);
  });

  test("validates emoji (1-10 characters) and refuses with the spec's codes", async ({
    request,
  }) => {
    const { auth, person, agent, message } = await chatWithMessage();
    const api = agentApi(request, auth);
    for (const body of [
      {},
      { emoji: "" },
      { emoji: "x".repeat(11) },
      { emoji: 5 },
      { emoji: "👍", kind: "like" },
    ])
      await expectError(
        await api.post(`/messages/${message.id}/reactions`, body),
        400,
        "validation_error",
      );
    expect(
      (await api.post(`/messages/${message.id}/reactions`, { emoji: "👨‍👩‍👧‍👦" })).status(),
    ).toBe(201);
    await expectError(
      await api.post("/messages/msg_unknown/reactions", { emoji: "👍" }),
      404,
      "not_found",
    );
    await expectError(
      await api.delete(`/messages/msg_unknown/reactions/${encodeURIComponent("👍")}`),
      404,
      "not_found",
    );
    const stranger = await newContact();
    await expectError(
      await agentApi(request, stranger.auth).post(`/messages/${message.id}/reactions`, {
        emoji: "👍",
      }),
      404,
      "not_found",
    );
    const readOnly = await chatWithMessage(["messages:read"]);
    const readOnlyApi = agentApi(request, readOnly.auth);
    const scope = await expectError(
      await readOnlyApi.post(`/messages/${readOnly.message.id}/reactions`, { emoji: "👍" }),
      403,
      "scope_not_granted",
    );
    expect(scope.scope).toBe("messages:write");
    await expectError(
      await readOnlyApi.delete(`/messages/${readOnly.message.id}/reactions/x`),
      403,
      "scope_not_granted",
    );
    await blockAgent(deps(), person.id, agent.id);
    await expectError(
      await api.post(`/messages/${message.id}/reactions`, { emoji: "👍" }),
      403,
      "blocked",
    );
  });
});
