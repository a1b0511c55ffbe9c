import type { Page, Request } from "@playwright/test";
import { addContact, createAgent, createUser, findUser, mintAgentToken } from "@switchboard/core";
import { deps } from "../support/fixtures";
import { expect, test } from "../support/test";
import { startWebhookReceiver } from "../support/webhook-receiver";
import { myNum, signUp } from "./sign-up";
import { chatWithNewAgent, settled } from "./world";

/**
 * The console's tRPC calls as the page makes them (the live subscription aside): a read is a
 * GET of one batch of queries, a write a POST of mutations; `procedures` is the batch's names.
 */
function watchTrpc(page: Page) {
  const calls: { method: string; procedures: string[]; at: number }[] = [];
  const inFlight = new Set<Request>();
  page.on("request", (request) => {
    const url = new URL(request.url());
    // The live stream itself, and the tab's presence heartbeat (decision 0073: whether a tab is
    // looked at, renewed every 30 s), are not reads or writes of what the page shows.
    if (!url.pathname.startsWith("/api/trpc/")) return;
    if (url.pathname.includes("live.changes") || url.pathname.includes("settings.presence")) return;
    inFlight.add(request);
    const procedures = url.pathname.slice("/api/trpc/".length).split(",");
    calls.push({ method: request.method(), procedures, at: Date.now() });
  });
  const done = (request: Request) => inFlight.delete(request);
  page.on("requestfinished", done);
  page.on("requestfailed", done);
  return {
    calls,
    reads: () => calls.filter((call) => call.method === "GET"),
    writes: () => calls.filter((call) => call.method !== "GET"),
    /** Waits until nothing is in flight and nothing started for `quietMs`. */
    async quiet(quietMs: number) {
      await expect
        .poll(
          () =>
            inFlight.size === 0 && Date.now() - (calls.at(-1)?.at ?? 0) >= quietMs
              ? "quiet"
              : JSON.stringify({ inFlight: inFlight.size, calls }),
          { timeout: 15_000, intervals: [100] },
        )
        .toBe("quiet");
    },
    clear: () => {
      calls.length = 0;
    },
  };
}

test("one message from an agent costs an open chat one re-read", async ({ page, request }) => {
  const { auth, conversationId } = await chatWithNewAgent(page, "Rhea Reads", [
    "messages:read",
    "messages:write",
  ]);
  const trpc = watchTrpc(page);
  await expect(page.getByTestId("live-status")).toHaveText("live", { timeout: 15_000 });
  await settled(page);
  await trpc.quiet(1000); // the first load and the re-read of the subscription's first wake-up
  trpc.clear();

  const sent = await request.post("/api/agent/v1/messages", {
    headers: auth,
    data: { conversationId, type: "text", content: "Your table is booked for eight." },
  });
  expect(sent.status()).toBe(201);
  await expect(page.getByTestId("chat-message").last()).toContainText(
    "Your table is booked for eight.",
  );
  await trpc.quiet(1500); // the chat marks the message read; that wake-up must cost nothing here

  // Exactly one read: the chat and the chat list in one batch, nothing else on the page.
  expect(trpc.reads().map((call) => call.procedures.sort())).toEqual([
    ["chats.list", "chats.page"],
  ]);
  // The one write: reading the chat marks it read.
  expect(trpc.writes().map((call) => call.procedures)).toEqual([["chats.markRead"]]);
});

test("the webhook page shows a delivery when it completes, and polls nothing meanwhile", async ({
  page,
}) => {
  const receiver = await startWebhookReceiver();
  try {
    await signUp(page, "Quinn Quiet");
    const owner = await findUser(deps(), await myNum(page));
    const agent = await createAgent(deps(), { ownerId: owner.id, displayName: "Courier" });
    const trpc = watchTrpc(page);
    await page.goto(`/agents/${agent.id}/webhook`);
    await expect(page.getByTestId("live-status")).toHaveText("live", { timeout: 15_000 });
    await page.getByTestId("webhook-url-input").fill(receiver.url);
    await page.getByTestId("webhook-save").click();
    await expect(page.getByTestId("webhook-state")).toHaveText("waiting for events");
    await trpc.quiet(1000);

    // A quiet page makes no request at all: it used to poll every 3 s.
    trpc.clear();
    await page.waitForTimeout(5000);
    expect(trpc.calls).toEqual([]);

    // An event goes out; its settled delivery wakes the page, which re-reads its webhook.
    const person = await createUser(deps(), {});
    await addContact(deps(), person.id, agent.id, []);
    const row = page.getByTestId("webhook-delivery").first();
    await expect(row).toContainText("contact.added");
    await expect(row.getByTestId("delivery-status")).toHaveText("delivered");
    await expect(page.getByTestId("webhook-state")).toHaveText("healthy");
    expect(receiver.received).toHaveLength(1);
    expect(trpc.reads().flatMap((call) => call.procedures)).toContain("webhooks.get");
  } finally {
    await receiver.close();
  }
});

test("the agent page shows its usage when the agent sends, and polls nothing meanwhile; status checks on request", async ({
  page,
  request,
}) => {
  await signUp(page, "Otto Owner");
  const owner = await findUser(deps(), await myNum(page));
  const agent = await createAgent(deps(), {
    ownerId: owner.id,
    displayName: "Sender",
    requestedScopes: ["messages:write"],
  });
  const { token } = await mintAgentToken(deps(), agent.id);
  const person = await createUser(deps(), {});
  const { conversationId } = await addContact(deps(), person.id, agent.id, ["messages:write"]);
  const trpc = watchTrpc(page);
  await page.goto(`/agents/${agent.id}`);
  await expect(page.getByTestId("live-status")).toHaveText("live", { timeout: 15_000 });
  await expect(page.getByTestId("usage-messages")).toContainText("0 /");
  await trpc.quiet(1000);

  trpc.clear();
  await page.waitForTimeout(6000); // it used to poll every 5 s
  expect(trpc.calls).toEqual([]);

  const sent = await request.post("/api/agent/v1/messages", {
    headers: { Authorization: `Bearer agent:${token}` },
    data: { conversationId, type: "text", content: "Counted." },
  });
  expect(sent.status()).toBe(201);
  await expect(page.getByTestId("usage-messages")).toContainText("1 /");

  // The instance's own figures are checked on request, not on a timer.
  await page.goto("/agents/status");
  await expect(page.getByTestId("status-checked")).toContainText("Checked");
  await trpc.quiet(1000);
  trpc.clear();
  await page.getByTestId("status-check-again").click();
  await expect
    .poll(() => trpc.reads().flatMap((call) => call.procedures))
    .toContain("instance.status");
});
