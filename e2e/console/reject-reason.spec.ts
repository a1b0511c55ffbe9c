import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type AgentEvent, Switchboard } from "@switchboard/sdk";
import { expectEvent } from "../support/contract";
import { expect, test } from "../support/test";
import { startWebhookReceiver } from "../support/webhook-receiver";
import { seriousViolations } from "./axe";
import { focusedTestId } from "./focus";
import { chatWithNewAgent } from "./world";

test("Reject asks why in a keyboard dialog that passes axe; the agent reads the reason over REST, its webhook, the stream and MCP", async ({
  page,
  request,
}) => {
  const chat = await chatWithNewAgent(page, "Rhea Reasoner", ["messages:read", "messages:write"]);
  const receiver = await startWebhookReceiver();
  const delivered = () =>
    receiver.received
      .map(({ body }) => expectEvent(JSON.parse(body)))
      .find((event) => event.type === "action.rejected");
  try {
    const hook = await request.put("/api/agent/v1/webhook", {
      headers: chat.auth,
      data: { url: receiver.url },
    });
    expect(hook.status(), await hook.text()).toBe(200);
    const propose = async (title: string) => {
      const proposed = await request.post("/api/agent/v1/actions", {
        headers: chat.auth,
        data: { conversationId: chat.conversationId, kind: "table.book", title, payload: {} },
      });
      expect(proposed.status()).toBe(201);
      const { action } = await proposed.json();
      const card = page.locator(`[data-testid="approval-card"][data-action-id="${action.id}"]`);
      await expect(card.getByTestId("card-state")).toHaveText("pending");
      return { id: action.id as string, card };
    };
    const actionOf = async (id: string) =>
      (await (await request.get(`/api/agent/v1/actions/${id}`, { headers: chat.auth })).json())
        .action;

    // By keyboard: Reject opens the dialog, focus on its first choice; Escape closes it and
    // gives focus back to Reject, deciding nothing.
    const friday = await propose("Book a table for Friday");
    await friday.card.getByTestId("card-reject").focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Reject “Book a table for Friday”?" });
    await expect(dialog).toBeVisible();
    expect(await focusedTestId(page)).toBe("reject-choice-not_now");
    expect(await seriousViolations(page, { within: '[data-testid="reject-dialog"]' })).toEqual([]);
    await page.keyboard.press("Escape");
    await expect(dialog).toHaveCount(0);
    expect(await focusedTestId(page)).toBe("card-reject");
    await expect(friday.card.getByTestId("card-state")).toHaveText("pending");

    // Again: arrows pick a choice, Tab reaches the text and then Reject.
    await page.keyboard.press("Enter");
    await expect(dialog).toBeVisible();
    await page.keyboard.press("ArrowDown");
    await expect(dialog.getByTestId("reject-choice-wrong_details")).toBeChecked();
    await page.keyboard.press("Tab");
    expect(await focusedTestId(page)).toBe("reject-reason");
    await page.keyboard.type("Friday is full; Saturday works");
    await expect(dialog).toContainText("30 of 500 characters");
    // The text stops at 500 characters, as the server's bound does.
    await dialog.getByTestId("reject-reason").fill("x".repeat(600));
    await expect(dialog.getByTestId("reject-reason")).toHaveValue("x".repeat(500));
    await dialog.getByTestId("reject-reason").fill("Friday is full; Saturday works");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    expect(await focusedTestId(page)).toBe("reject-ok");
    // Tab stays inside the dialog.
    await page.keyboard.press("Tab");
    expect(await focusedTestId(page)).toMatch(/^reject-choice-/);
    await page.keyboard.press("Shift+Tab");
    expect(await focusedTestId(page)).toBe("reject-ok");
    await page.keyboard.press("Enter");

    await expect(friday.card.getByTestId("card-state")).toHaveText("rejected");
    await expect(friday.card.getByTestId("card-rejection")).toHaveText(
      "Your reason: Wrong details: Friday is full; Saturday works",
    );
    await expect.poll(() => focusedTestId(page)).toBe("card-outcome");
    const why = { reason: "Friday is full; Saturday works", choice: "wrong_details" };

    // REST: GET of the action and the action.rejected event.
    expect((await actionOf(friday.id)).rejection).toEqual(why);
    const updates = await (
      await request.get("/api/agent/v1/updates?afterSeq=0&wait=5", { headers: chat.auth })
    ).json();
    const rejected = updates.events.find((e: { type: string }) => e.type === "action.rejected");
    expect(rejected.payload.action).toMatchObject({ id: friday.id, rejection: why });

    // The webhook carries the same event.
    await expect.poll(() => delivered()?.id, { timeout: 10_000 }).toBe(rejected.id);
    expect(delivered()?.payload).toEqual(rejected.payload);

    // The stream: an agent that connects from the start replays the same event, reason and all.
    const stream = await new Switchboard({
      token: chat.token,
      baseUrl: `http://localhost:${process.env.E2E_PORT}/api`,
      wsUrl: `ws://localhost:${process.env.E2E_WS_PORT}`,
    }).connect({ afterSeq: 0 });
    try {
      const streamed: AgentEvent[] = [];
      stream.on("event", (event) => streamed.push(event));
      await expect
        .poll(() => streamed.find((event) => event.id === rejected.id)?.payload, {
          timeout: 10_000,
        })
        .toEqual(rejected.payload);
    } finally {
      await stream.close();
    }

    // MCP: the getAction tool's output.
    const mcp = new Client({ name: "e2e", version: "1.0.0" });
    await mcp.connect(
      new StreamableHTTPClientTransport(
        new URL(`http://localhost:${process.env.E2E_PORT}/api/agent/v1/mcp`),
        { requestInit: { headers: chat.auth } },
      ),
    );
    try {
      const answer = await mcp.callTool({ name: "getAction", arguments: { actionId: friday.id } });
      expect(answer.isError, JSON.stringify(answer.content)).toBeFalsy();
      expect(
        (answer.structuredContent as { action: { rejection: unknown } }).action.rejection,
      ).toEqual(why);
    } finally {
      await mcp.close();
    }

    // Rejecting with nothing given stays one step: both fields null for the agent.
    const plain = await propose("Order flowers");
    await plain.card.getByTestId("card-reject").click();
    await page.getByTestId("reject-ok").click();
    await expect(plain.card.getByTestId("card-state")).toHaveText("rejected");
    await expect(plain.card.getByTestId("card-rejection")).toHaveCount(0);
    expect((await actionOf(plain.id)).rejection).toEqual({ reason: null, choice: null });

    // A quick choice taken back ("No particular reason") gives the agent none.
    const second = await propose("Order chocolates");
    await second.card.getByTestId("card-reject").click();
    await page.getByTestId("reject-choice-never").check();
    await page.getByTestId("reject-choice-none").check();
    await page.getByTestId("reject-ok").click();
    await expect(second.card.getByTestId("card-state")).toHaveText("rejected");
    expect((await actionOf(second.id)).rejection).toEqual({ reason: null, choice: null });
  } finally {
    await receiver.close();
  }
});
