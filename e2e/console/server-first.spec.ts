import type { Browser, BrowserContext, Page } from "@playwright/test";
import {
  addContact,
  createAgent,
  createDeveloperKey,
  createRecord,
  createUser,
  decideAction,
  endCall,
  mintAgentToken,
  proposeAction,
  sendAgentMessage,
  sendPersonEmail,
} from "@switchboard/core";
import { agentApi, deps } from "../support/fixtures";
import { expect, test } from "../support/test";
import { myNum, signUp } from "./sign-up";

/**
 * Console pages load their first data on the server: the first HTML answer already shows it,
 * and the browser, handed that data, reads none of it again as the page starts (nor when its
 * live link connects, since nothing changed after the server read it).
 */

/** A signed-in person with something on every page, each text unique to this run. */
async function personWithEverything(page: Page, request: Parameters<typeof agentApi>[0]) {
  await signUp(page, "Sasha Server");
  const me = await myNum(page);
  const tag = Math.random().toString(36).slice(2, 8);
  const words = {
    agent: `Prefetch Concierge ${tag}`,
    bio: `Books tables before you ask (${tag}).`,
    message: `Your table for two is at eight (${tag}).`,
    subject: `Quarterly plans ${tag}`,
    email: `Shall we meet on Monday? (${tag})`,
    post: `Rain after noon today (${tag}).`,
    summary: `You agreed to send the offer (${tag}).`,
    record: `Renew the passport ${tag}`,
    carded: `Book the dentist ${tag}`,
    self: `deploy ${tag} finished`,
    owned: `Prefetch Butler ${tag}`,
    stranger: `Prefetch Stranger ${tag}`,
    token: `laptop ${tag}`,
  };
  const owner = await createUser(deps(), { displayName: "Owner" });
  const agent = await createAgent(deps(), {
    ownerId: owner.id,
    displayName: words.agent,
    bio: words.bio,
    requestedScopes: ["messages:read", "messages:write", "tasks:read", "tasks:write"],
  });
  const { conversationId } = await addContact(deps(), me, agent.id, [
    "messages:read",
    "messages:write",
    "tasks:read",
    "tasks:write",
  ]);
  await sendAgentMessage(
    deps(),
    { agentId: agent.id },
    { conversationId, type: "text", content: words.message },
  );
  const friend = await createUser(deps(), { displayName: "Robin Reader" });
  const { threadId } = await sendPersonEmail(deps(), me, {
    to: [friend.num],
    subject: words.subject,
    content: words.email,
  });
  await endCall(deps(), {
    participants: [{ user: me, summary: words.summary }, { user: friend.id }],
    duration: 65,
    transcript: "Sasha: Hello.\nRobin: Hi.",
  });
  await createRecord(deps(), me, "task", { title: words.record, dueDate: "2030-11-28T08:00:00Z" });
  const { action } = await proposeAction(
    deps(),
    { agentId: agent.id },
    { conversationId, skill: "create_task", title: "Add it", payload: { title: words.carded } },
  );
  await decideAction(deps(), { userRef: me, actionId: action.id, approve: true });
  const { token } = await mintAgentToken(deps(), agent.id);
  const posted = await agentApi(request, { Authorization: `Bearer agent:${token}` }).post(
    "/posts",
    { texts: [words.post] },
  );
  expect(posted.status()).toBe(201);
  const { key } = await createDeveloperKey(deps(), me, { scopes: ["self-chat:write"] });
  const noted = await request.post("/api/v1/me/messages", {
    headers: { Authorization: `Bearer dev:${key}` },
    data: { content: words.self },
  });
  expect(noted.status()).toBe(201);
  // An agent of their own, idle (its usage never expires mid-test, which would re-read it).
  const owned = await createAgent(deps(), { ownerId: me, displayName: words.owned });
  await mintAgentToken(deps(), owned.id, { name: words.token });
  // An agent not yet added: its consent card.
  const stranger = await createAgent(deps(), {
    ownerId: owner.id,
    displayName: words.stranger,
    requestedScopes: ["messages:read", "messages:write"],
  });
  return { me, words, conversationId, threadId, ownedId: owned.id, strangerNum: stranger.num };
}

/**
 * What each page must show in its first HTML, by test id. The chat comes last: opening it marks
 * it read, a change the pages loaded after it would hear of.
 */
function firstHtml(world: Awaited<ReturnType<typeof personWithEverything>>) {
  const { words, conversationId, threadId, ownedId, strangerNum } = world;
  return [
    { path: "/chats", shows: [["chat-row", words.agent]] },
    { path: "/inbox", shows: [["inbox-thread-subject", words.subject]] },
    {
      path: `/inbox/${threadId}`,
      shows: [
        ["thread-subject", words.subject],
        ["email-message", words.email],
      ],
    },
    { path: "/feed", shows: [["feed-post", words.post]] },
    { path: "/calls", shows: [["call-summary", words.summary]] },
    {
      path: "/records/tasks",
      shows: [
        ["record-title", words.record],
        ["record-title", words.carded],
        ["record-card-link", `From a card by ${words.agent}`],
      ],
    },
    { path: "/self-chat", shows: [["self-message", words.self]] },
    { path: "/agents", shows: [["agent-row", words.owned]] },
    {
      path: `/agents/${ownedId}?range=7`,
      shows: [
        ["agent-title", words.owned],
        ["activity-range-words", "The last 7 days"],
        ["chart-messages", "0 sent, 0 received"],
      ],
    },
    {
      path: `/agents/${ownedId}/decisions`,
      shows: [
        ["agent-title", words.owned],
        ["decisions", "No decisions yet"],
      ],
    },
    { path: `/agents/${ownedId}/tokens`, shows: [["token-row", words.token]] },
    { path: `/agents/${ownedId}/profile`, shows: [["breadcrumb-agent", words.owned]] },
    {
      path: `/agents/${ownedId}/webhook?status=dead`,
      shows: [
        ["breadcrumb-agent", words.owned],
        ["webhook-none", "No webhook"],
        ["deliveries-none", "No deliveries match these filters."],
      ],
    },
    { path: "/agents/status", shows: [["service-version", "(Node "]] },
    {
      path: `/chats/add?agent=${strangerNum}`,
      shows: [
        ["consent-card", words.stranger],
        ["consent-owner", "Made by Owner"],
      ],
    },
    {
      path: `/chats/${conversationId}`,
      shows: [
        ["chat-agent-name", words.agent],
        ["chat-message", words.message],
        ["chat-agent-bio", words.bio],
      ],
    },
  ] as const;
}

/** A tab of the same person that runs no script: what it shows is the server's HTML alone. */
async function htmlOnly(browser: Browser, context: BrowserContext): Promise<Page> {
  const bare = await browser.newContext({
    javaScriptEnabled: false,
    storageState: await context.storageState(),
  });
  return bare.newPage();
}

/**
 * The console's tRPC reads (GETs, the live subscription aside) while `path` loads and its live
 * link connects and settles. A re-read for the link's first wake-up comes 150 ms after it.
 */
async function readsOnLoad(page: Page, path: string): Promise<string[]> {
  const reads: string[] = [];
  const onRequest = (request: { url(): string; method(): string }) => {
    const url = new URL(request.url());
    if (
      request.method() === "GET" &&
      url.pathname.startsWith("/api/trpc/") &&
      !url.pathname.includes("live.changes")
    )
      reads.push(url.pathname.slice("/api/trpc/".length));
  };
  page.on("request", onRequest);
  try {
    await page.goto(path);
    await expect(page.getByTestId("live-status")).toHaveText("live", { timeout: 15_000 });
    await page.waitForTimeout(1000);
  } finally {
    page.off("request", onRequest);
  }
  return reads;
}

test("every page answers with its data in the first HTML, and the browser reads none of it again", async ({
  page,
  context,
  browser,
  request,
}) => {
  test.setTimeout(180_000); // twenty-six page loads, each waiting for its live link to settle
  const world = await personWithEverything(page, request);
  const wroteAt = Date.now();

  const bare = await htmlOnly(browser, context);
  for (const { path, shows } of firstHtml(world)) {
    const answer = await bare.goto(path);
    expect(answer?.status(), path).toBe(200);
    for (const [testId, text] of shows)
      await expect(
        bare.getByTestId(testId).filter({ hasText: text }),
        `${path}: ${text}`,
      ).toHaveCount(1, { timeout: 1 });
  }
  await bare.context().close();

  // The live link re-reads what changed after the server read the page; nothing did (the
  // server allows its clocks a second's disagreement, so the last write is a second back).
  await page.waitForTimeout(Math.max(0, wroteAt + 1100 - Date.now()));
  for (const { path, shows } of firstHtml(world)) {
    expect(await readsOnLoad(page, path), path).toEqual([]);
    for (const [testId, text] of shows)
      await expect(page.getByTestId(testId).filter({ hasText: text }).first()).toBeVisible();
  }
});

test.describe("read in another time zone and language", () => {
  test.use({ timezoneId: "Asia/Kolkata", locale: "de-DE" });

  test("pages hydrate what the server wrote, then write times in the reader's terms", async ({
    page,
    context,
    browser,
    request,
  }) => {
    test.setTimeout(150_000);
    const world = await personWithEverything(page, request);
    const record = (tab: Page) => tab.getByTestId("record").filter({ hasText: world.words.record });
    // The server knows neither: it writes UTC, in British English.
    const bare = await htmlOnly(browser, context);
    await bare.goto("/records/tasks");
    await expect(record(bare)).toContainText("Due Thu, 28 Nov 2030, 08:00");
    await bare.context().close();

    const failures: string[] = [];
    page.on("pageerror", (error) => failures.push(`${page.url()}: ${error.message}`));
    page.on("console", (message) => {
      if (message.type() === "error") failures.push(`${page.url()}: ${message.text()}`);
    });
    for (const { path } of firstHtml(world)) {
      await page.goto(path);
      await expect(page.getByTestId("live-status")).toHaveText("live", { timeout: 15_000 });
      if (path === "/records/tasks")
        await expect(record(page)).toContainText("Due Do., 28. Nov. 2030, 13:30");
    }
    // No hydration mismatch (React error 418) on any page, nor anything else.
    expect(failures).toEqual([]);
  });
});

test("a page whose data cannot be read renders its own not-found message, not an error page", async ({
  page,
}) => {
  await signUp(page, "Nia Nowhere");
  const chat = await page.goto("/chats/cnv_missing");
  expect(chat?.status()).toBe(200);
  await expect(page.getByRole("alert").filter({ hasText: "There is no such chat." })).toHaveText(
    "There is no such chat. Pick one from your chats, or add an agent.",
  );
  const thread = await page.goto("/inbox/eth_missing");
  expect(thread?.status()).toBe(200);
  await expect(page.getByRole("alert").filter({ hasText: "no such" })).toHaveText(
    "There is no such thread.",
  );
});
