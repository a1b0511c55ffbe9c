import {
  addContact,
  authenticateAgent,
  authenticateDeveloper,
  CoreError,
  commentOnPost,
  createAgent,
  createDeveloperKey,
  createPost,
  createRecord,
  createUser,
  decideAction,
  getAgentAction,
  getOwnRecord,
  getPersonMessageMedia,
  getWebhook,
  listPersonMessages,
  mintAgentToken,
  proposeAction,
  putWebhook,
  sendAgentMessage,
  sendPersonEmail,
  sendPersonMessage,
} from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { TRPCError } from "@trpc/server";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { SessionUser } from "~/auth/options";
import { createCallerFactory } from "./init";
import { appRouter } from "./router";

/**
 * The console's authorization matrix: person X calls every procedure that takes an id with
 * person Y's ids (Y's agent, chat, messages, card, records, tokens, keys) and is refused with
 * `not_found` or `forbidden`, learns nothing of Y's, and changes nothing of Y's. Every procedure
 * of the router is either a row here or listed as taking no id of anyone else, so a new one
 * cannot be forgotten.
 */

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

const SECRETS = {
  name: "Yolanda Private",
  content: "yolanda secret message 5521",
  title: "yolanda secret card 5521",
  record: "yolanda secret record 5521",
};

async function personY() {
  const y = await createUser(t.deps, { displayName: SECRETS.name });
  const owned = await createAgent(t.deps, { ownerId: y.id, displayName: "Y's own agent" });
  const { token, info } = await mintAgentToken(t.deps, owned.id);
  await putWebhook(t.deps, owned.id, "https://hooks.example.com/y");
  const { key, info: keyInfo } = await createDeveloperKey(t.deps, y.id, {
    scopes: ["self-chat:write"],
  });
  const other = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: other.id,
    displayName: "Shared agent",
    requestedScopes: ["messages:read", "messages:write", "tasks:write"],
  });
  const { conversationId } = await addContact(t.deps, y.id, agent.id, [
    "messages:read",
    "messages:write",
    "tasks:write",
  ]);
  const { message } = await sendPersonMessage(t.deps, y.id, agent.id, {
    type: "text",
    content: SECRETS.content,
  });
  await sendAgentMessage(
    t.deps,
    { agentId: agent.id },
    { conversationId, type: "text", content: SECRETS.content },
  );
  const { action } = await proposeAction(
    t.deps,
    { agentId: agent.id },
    { conversationId, kind: "k", title: SECRETS.title },
  );
  const records = {
    task: await createRecord(t.deps, y.id, "task", { title: SECRETS.record }),
    reminder: await createRecord(t.deps, y.id, "reminder", {
      title: SECRETS.record,
      reminderTime: "2030-01-01T00:00:00Z",
    }),
    event: await createRecord(t.deps, y.id, "event", {
      title: SECRETS.record,
      startTime: "2030-01-01T00:00:00Z",
    }),
    note: await createRecord(t.deps, y.id, "note", { title: SECRETS.record, content: "c" }),
  };
  // A post of Y's own agent (which X never added), and Y's comment on the shared agent's post.
  const hiddenPost = await createPost(t.deps, { agentId: owned.id }, { texts: [SECRETS.content] });
  const sharedPost = await createPost(t.deps, { agentId: agent.id }, { texts: ["hello all"] });
  const comment = await commentOnPost(t.deps, y.id, {
    postId: sharedPost.id,
    text: SECRETS.content,
  });
  const email = await sendPersonEmail(t.deps, y.id, {
    to: [other.num],
    subject: SECRETS.title,
    content: SECRETS.content,
  });
  return {
    y,
    owned,
    hiddenPost,
    commentId: comment.id,
    threadId: email.threadId,
    token,
    tokenId: info.id,
    key,
    keyId: keyInfo.id,
    agent,
    conversationId,
    message,
    action,
    records,
  };
}

type Y = Awaited<ReturnType<typeof personY>>;
/** What X has of their own: an agent, and a chat with the agent Y talks to. */
interface X {
  agentId: string;
  conversationId: string;
}
type Call = (caller: ReturnType<typeof callerFor>, y: Y, x: X) => Promise<unknown>;

/** Procedure path → calls with Y's ids; every one must be refused. */
const rows: Record<string, Call[]> = {
  "chats.page": [(c, y) => c.chats.page({ chat: y.conversationId })],
  "chats.send": [
    (c, y) => c.chats.send({ chat: y.conversationId, message: { type: "text", content: "x" } }),
  ],
  "chats.markRead": [
    (c, y) => c.chats.markRead({ chat: y.conversationId, messageId: y.message.id }),
    (c, y, x) => c.chats.markRead({ chat: x.conversationId, messageId: y.message.id }),
  ],
  "chats.typing": [(c, y) => c.chats.typing({ chat: y.conversationId, typing: true })],
  "chats.react": [
    (c, y) => c.chats.react({ messageId: y.message.id, emoji: "👍", on: true }),
    (c, y) => c.chats.react({ messageId: y.message.id, emoji: "👍", on: false }),
  ],
  "chats.decide": [
    (c, y) => c.chats.decide({ chat: y.conversationId, actionId: y.action.id, approve: true }),
    (c, y, x) => c.chats.decide({ chat: x.conversationId, actionId: y.action.id, approve: true }),
  ],
  "agents.get": [(c, y) => c.agents.get({ agentId: y.owned.id })],
  "oauth.decide": [(c, y) => c.oauth.decide({ params: {}, agentId: y.owned.id, allow: true })],
  "agents.update": [
    (c, y) => c.agents.update({ agentId: y.owned.id, change: { displayName: "Taken" } }),
  ],
  "agents.pause": [(c, y) => c.agents.pause({ agentId: y.owned.id })],
  "agents.resume": [(c, y) => c.agents.resume({ agentId: y.owned.id })],
  "tokens.list": [(c, y) => c.tokens.list({ agentId: y.owned.id })],
  "tokens.mint": [(c, y) => c.tokens.mint({ agentId: y.owned.id })],
  "tokens.revoke": [
    (c, y) => c.tokens.revoke({ agentId: y.owned.id, tokenId: y.tokenId }),
    (c, y, x) => c.tokens.revoke({ agentId: x.agentId, tokenId: y.tokenId }),
  ],
  "webhooks.get": [(c, y) => c.webhooks.get({ agentId: y.owned.id })],
  "webhooks.set": [
    (c, y) => c.webhooks.set({ agentId: y.owned.id, url: "https://evil.example.com/" }),
  ],
  "webhooks.rotate": [(c, y) => c.webhooks.rotate({ agentId: y.owned.id })],
  "webhooks.resume": [(c, y) => c.webhooks.resume({ agentId: y.owned.id })],
  "webhooks.remove": [(c, y) => c.webhooks.remove({ agentId: y.owned.id })],
  "records.update": (["task", "reminder", "event", "note"] as const).map(
    (type): Call =>
      (c, y) =>
        c.records.update({ type, id: y.records[type].id, changes: { title: "Taken" } }),
  ),
  "records.complete": (["task", "reminder"] as const).map(
    (type): Call =>
      (c, y) =>
        c.records.complete({ type, id: y.records[type].id }),
  ),
  "records.archive": (["task", "reminder", "event", "note"] as const).map(
    (type): Call =>
      (c, y) =>
        c.records.archive({ type, id: y.records[type].id }),
  ),
  "records.delete": (["task", "reminder", "event", "note"] as const).map(
    (type): Call =>
      (c, y) =>
        c.records.delete({ type, id: y.records[type].id }),
  ),
  "developerKeys.revoke": [(c, y) => c.developerKeys.revoke({ keyId: y.keyId })],
  "chats.agent": [(c, y) => c.chats.agent({ chat: y.conversationId })],
  "agents.history": [(c, y) => c.agents.history({ agentId: y.owned.id, days: 7 })],
  "agents.decisions": [(c, y) => c.agents.decisions({ agentId: y.owned.id })],
  "webhooks.sendTest": [(c, y) => c.webhooks.sendTest({ agentId: y.owned.id })],
  "webhooks.delivery": [(c, y) => c.webhooks.delivery({ agentId: y.owned.id, eventId: "evt_x" })],
  "webhooks.retry": [(c, y) => c.webhooks.retry({ agentId: y.owned.id, eventId: "evt_x" })],
  "webhooks.redeliver": [(c, y) => c.webhooks.redeliver({ agentId: y.owned.id, eventId: "evt_x" })],
  "inbox.thread": [(c, y) => c.inbox.thread({ threadId: y.threadId })],
  "inbox.markRead": [(c, y) => c.inbox.markRead({ threadId: y.threadId })],
  "inbox.send": [(c, y) => c.inbox.send({ threadId: y.threadId, content: "me too" })],
  "feed.like": [(c, y) => c.feed.like({ postId: y.hiddenPost.id, on: true })],
  "feed.repost": [(c, y) => c.feed.repost({ postId: y.hiddenPost.id, on: true })],
  "feed.comments": [(c, y) => c.feed.comments({ postId: y.hiddenPost.id })],
  "feed.comment": [(c, y) => c.feed.comment({ postId: y.hiddenPost.id, text: "x" })],
  "feed.deleteComment": [(c, y) => c.feed.deleteComment({ commentId: y.commentId })],
};

/**
 * Procedures that take no id of anyone else: they act on the caller's own things only, or on
 * an agent by its public number or id, where what changes is the caller's own standing with it.
 */
const ownOnly = new Set([
  "auth.signUp",
  "auth.me",
  "chats.list",
  "chats.consentCard",
  "chats.add",
  "chats.addPerson",
  "chats.setGrant",
  "chats.setReplyOnly",
  "chats.setBlocked",
  "chats.setAutoExecute",
  "chats.remove",
  // The caller's own cards only (core's listWaitingCards reads by the caller's id).
  "chats.waiting",
  "chats.waitingCount",
  "agents.list",
  "agents.create",
  "live.changes",
  "inbox.list",
  "feed.page",
  "calls.list",
  "instance.status",
  "webhooks.alerts",
  "records.list",
  "records.create",
  // Filtered to the caller's own: Y's record ids find no card, Y's decisions are not listed.
  "records.cards",
  "records.decisions",
  "selfChat.list",
  "developerKeys.list",
  "developerKeys.create",
  "settings.notifications",
  "settings.updateNotifications",
  "settings.devices",
  // By endpoint, among the caller's own devices only: Y's endpoint removes nothing.
  "settings.removeDevice",
  // A lease under the caller's own id; a tab id is the caller's own too (no one else's row).
  "settings.presence",
]);

function callerFor(user: SessionUser) {
  return createCallerFactory(appRouter)({ deps: t.deps, user });
}

it("every procedure is either in the matrix or takes no one else's id", () => {
  const procedures = Object.keys(appRouter._def.procedures).sort();
  expect(procedures).toEqual([...new Set([...Object.keys(rows), ...ownOnly])].sort());
});

it("person X is refused every procedure with person Y's ids, learns nothing and changes nothing", async () => {
  const y = await personY();
  const xUser = await createUser(t.deps, { displayName: "Xavier" });
  const xAgent = await createAgent(t.deps, { ownerId: xUser.id, displayName: "X's agent" });
  const { conversationId } = await addContact(t.deps, xUser.id, y.agent.id, ["messages:write"]);
  const x: X = { agentId: xAgent.id, conversationId };
  const caller = callerFor({ id: xUser.id, num: xUser.num, name: "Xavier" });

  for (const [path, calls] of Object.entries(rows)) {
    for (const [i, call] of calls.entries()) {
      const outcome = await call(caller, y, x).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      const label = `${path} #${i + 1}`;
      expect("error" in outcome, `${label} succeeded: ${JSON.stringify(outcome)}`).toBe(true);
      const error = (outcome as { error: unknown }).error;
      expect(error, label).toBeInstanceOf(TRPCError);
      const cause = (error as TRPCError).cause;
      expect(cause, `${label}: ${String(error)}`).toBeInstanceOf(CoreError);
      expect(["not_found", "forbidden"], `${label}: ${(cause as CoreError).code}`).toContain(
        (cause as CoreError).code,
      );
      const said = JSON.stringify({
        message: (cause as CoreError).message,
        ...(cause as CoreError).details,
      });
      for (const secret of Object.values(SECRETS)) expect(said, label).not.toContain(secret);
    }
  }

  // The console's media route (`/api/console/media/{messageId}`) reads through the same chat check.
  const { message: image } = await sendPersonMessage(t.deps, y.y.id, y.agent.id, {
    type: "image",
    imageData: `data:image/png;base64,${PNG}`,
  });
  await expect(getPersonMessageMedia(t.deps, xUser.id, image.id)).rejects.toMatchObject({
    code: "not_found",
  });

  // Nothing of Y's changed.
  await expect(authenticateAgent(t.deps, y.token)).resolves.toMatchObject({ agentId: y.owned.id });
  await expect(authenticateDeveloper(t.deps, y.key)).resolves.toBeDefined();
  expect((await getWebhook(t.deps, y.owned.id))?.url).toBe("https://hooks.example.com/y");
  expect(await getAgentAction(t.deps, y.agent.id, y.action.id)).toMatchObject({ state: "pending" });
  for (const type of ["task", "reminder", "event", "note"] as const)
    expect(await getOwnRecord(t.deps, y.y.id, type, y.records[type].id)).toEqual(y.records[type]);
  const page = await listPersonMessages(t.deps, y.y.id, y.conversationId, { limit: 50 });
  expect(JSON.stringify(page)).not.toContain("👍");
  expect(JSON.stringify(page)).not.toContain("Xavier");
});

it("the records page's card links and the decision export read only the caller's own", async () => {
  const y = await personY();
  const approved = await decideAction(t.deps, {
    userRef: y.y.id,
    actionId: (
      await proposeAction(
        t.deps,
        { agentId: y.agent.id },
        {
          conversationId: y.conversationId,
          skill: "create_task",
          title: "t",
          payload: { title: "t" },
        },
      )
    ).action.id,
    approve: true,
  });
  const recordId = approved.execution?.recordId as string;
  const asY = callerFor({ id: y.y.id, num: y.y.num, name: SECRETS.name });
  expect((await asY.records.cards({ recordIds: [recordId] })).map((c) => c.recordId)).toEqual([
    recordId,
  ]);
  expect((await asY.records.decisions({})).decisions).toHaveLength(1);

  const xUser = await createUser(t.deps, { displayName: "Xavier" });
  const asX = callerFor({ id: xUser.id, num: xUser.num, name: "Xavier" });
  expect(await asX.records.cards({ recordIds: [recordId] })).toEqual([]);
  expect(await asX.records.decisions({})).toEqual({ decisions: [], next: null });
});
