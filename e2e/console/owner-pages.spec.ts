import type { Page } from "@playwright/test";
import {
  addContact,
  createAgent,
  createUser,
  listWebhookDeliveries,
  proposeAction,
  putWebhook,
  resumeWebhook,
  sendPersonMessage,
} from "@switchboard/core";
import { deps } from "../support/fixtures";
import { expect, test } from "../support/test";
import { startWebhookReceiver } from "../support/webhook-receiver";
import { seriousViolations } from "./axe";
import { myNum, signUp } from "./sign-up";
import { settled } from "./world";

/** A signed-up owner (in `page`) and an agent of theirs. */
async function ownerWithAgent(page: Page, owner: string) {
  await signUp(page, owner);
  const agent = await createAgent(deps(), {
    ownerId: await myNum(page),
    displayName: "Ledger",
    requestedScopes: ["messages:read", "messages:write"],
  });
  return agent;
}

/** Sets the agent's webhook as its owner does, on its page (the loopback receiver is allowed there). */
async function setWebhook(page: Page, agentId: string, url: string) {
  await page.goto(`/agents/${agentId}/webhook`);
  await page.getByTestId("webhook-url-input").fill(url);
  await page.getByTestId("webhook-save").click();
  await expect(page.getByTestId("webhook-secret")).toHaveText(/^whsec_/);
}

const noSidewaysScroll = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth);

test("the deliveries log pages, filters by status, type and event id, and keeps its view in the URL", async ({
  page,
}) => {
  // 23 real deliveries, then each view, and axe on two pages at two widths.
  test.setTimeout(180_000);
  // Messages people send fail (503: retrying); everything else is delivered.
  const hook = await startWebhookReceiver((headers) =>
    headers["x-svc-event-type"] === "message.received" ? 503 : 200,
  );
  try {
    const agent = await ownerWithAgent(page, "Lena Logbook");
    await setWebhook(page, agent.id, hook.url);
    // 21 people add it (21 contact.added) and 2 of them write (2 message.received): 23 events,
    // more than one page of 20.
    const people = [];
    for (let i = 0; i < 21; i++) {
      const person = await createUser(deps(), {});
      await addContact(deps(), person.id, agent.id, ["messages:read", "messages:write"]);
      people.push(person);
    }
    for (const person of people.slice(0, 2))
      await sendPersonMessage(deps(), person.id, agent.id, { type: "text", content: "hi" });
    await expect.poll(() => hook.received.length, { timeout: 20_000 }).toBe(23);

    const webhookPage = `/agents/${agent.id}/webhook`;
    await page.goto(webhookPage);
    await settled(page);
    const rows = page.getByTestId("webhook-delivery");
    const older = page.getByTestId("deliveries-older");
    const newer = page.getByTestId("deliveries-newer");
    await expect(rows).toHaveCount(20);
    // Newest first: the two failing messages, with each column filled in.
    const top = rows.first();
    await expect(top.getByTestId("delivery-type")).toHaveText("message.received");
    await expect(top.getByTestId("delivery-status")).toHaveText("retrying");
    await expect(top).toContainText("next try in");
    await expect(top.getByTestId("delivery-attempts")).toHaveText("1");
    await expect(top.getByTestId("delivery-latency")).toHaveText(/^\d[\d,]* ms$/);
    const time = top.getByTestId("relative-time");
    await expect(time).toHaveText(/^(now|\d+ min)$/);
    await expect(time).toHaveAttribute("title", /\d{4}/);
    await expect(newer).toBeDisabled();

    // Paging: the 3 oldest on the next page, kept across a reload, and back again.
    await older.click();
    await expect(page).toHaveURL(/\?before=\d+$/);
    await expect(rows).toHaveCount(3);
    await expect(older).toBeDisabled();
    await page.reload();
    await expect(rows).toHaveCount(3);
    await expect(rows.getByTestId("delivery-type")).toHaveText(Array(3).fill("contact.added"));
    await newer.click();
    await expect(rows).toHaveCount(20);
    await expect(newer).toBeDisabled();

    // Status: only the retrying ones; the URL keeps the filter and drops the page.
    await page.getByTestId("delivery-filter-status").selectOption("pending");
    await expect(page).toHaveURL(/\?status=pending$/);
    await expect(rows).toHaveCount(2);
    await expect(rows.getByTestId("delivery-status")).toHaveText(["retrying", "retrying"]);
    await page.reload();
    await expect(rows).toHaveCount(2);
    await expect(page.getByTestId("delivery-filter-status")).toHaveValue("pending");
    await expect(page.getByTestId("deliveries-older")).toHaveCount(0);

    // Filters together: failed messages are none, said in words, and cleared in one step.
    await page.getByTestId("delivery-filter-status").selectOption("dead");
    await expect(page.getByTestId("deliveries-none")).toHaveText(
      /No deliveries match these filters\./,
    );
    await page.getByTestId("delivery-filter-clear").click();
    await expect(page).toHaveURL(new RegExp(`${webhookPage}$`));
    await expect(rows).toHaveCount(20);

    // Type: the 21 contact.added events, a page and one more, paged within the filter.
    await page.getByTestId("delivery-filter-type").selectOption("contact.added");
    await expect(rows.getByTestId("delivery-type")).toHaveText(Array(20).fill("contact.added"));
    await older.click();
    await expect(page).toHaveURL(/\?type=contact\.added&before=\d+$/);
    await expect(rows).toHaveCount(1);
    await page.reload();
    await expect(rows).toHaveCount(1);
    await expect(page.getByTestId("delivery-filter-type")).toHaveValue("contact.added");
    await page.getByTestId("delivery-filter-type").selectOption("message.received");
    await expect(rows).toHaveCount(2);

    // One event by its id (what its details show), from a shared link too.
    await page.getByTestId("delivery-filter-type").selectOption("");
    const [oldest] = await listWebhookDeliveries(deps(), agent.id, 1, {}, { after: 0 });
    const eventId = oldest?.eventId as string;
    await page.getByTestId("delivery-filter-event").fill(eventId);
    await page.getByTestId("delivery-filter-event").press("Enter");
    await expect(rows).toHaveCount(1);
    await expect(page).toHaveURL(new RegExp(`\\?event=${eventId}$`));
    await rows.first().getByTestId("delivery-details-toggle").click();
    await expect(page.getByTestId("delivery-event-id")).toHaveText(eventId);
    await page.goto(`${webhookPage}?event=${eventId}`);
    await expect(rows).toHaveCount(1);
    await expect(page.getByTestId("delivery-filter-event")).toHaveValue(eventId);
    await page.goto(`${webhookPage}?event=evt_nothing`);
    await expect(page.getByTestId("deliveries-none")).toContainText("No deliveries match");

    // The webhook and agent pages, full of data, fit a phone and a desktop and pass axe.
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      for (const url of [webhookPage, `/agents/${agent.id}`]) {
        await page.goto(url);
        await settled(page);
        await expect(
          page.getByTestId("webhook-delivery").or(page.getByTestId("activity")),
        ).not.toHaveCount(0);
        expect(await noSidewaysScroll(page), `${url} at ${width} px`).toBe(true);
        expect(await seriousViolations(page), `axe on ${url} at ${width} px`).toEqual([]);
      }
    }
  } finally {
    await hook.close();
  }
});

test("the agent page's charts show the range the owner picks, kept in the URL", async ({
  page,
}) => {
  const agent = await ownerWithAgent(page, "Rico Range");
  await page.goto(`/agents/${agent.id}`);
  const range = page.getByRole("group", { name: "Time range" });
  const words = page.getByTestId("activity-range-words");
  const chartDays = async () => {
    const chart = page.getByTestId("chart-messages");
    const numbers = chart.locator("details");
    if (!(await numbers.evaluate((element: HTMLDetailsElement) => element.open)))
      await chart.getByText("Numbers").click();
    return chart.locator("tbody tr");
  };
  await expect(range.getByRole("radio", { name: "30 days" })).toBeChecked();
  await expect(words).toContainText("The last 30 days");
  await expect(await chartDays()).toHaveCount(30);

  await range.getByRole("radio", { name: "7 days" }).check();
  await expect(page).toHaveURL(/\?range=7$/);
  await expect(words).toContainText("The last 7 days");
  await expect(await chartDays()).toHaveCount(7);
  await page.reload();
  await expect(range.getByRole("radio", { name: "7 days" })).toBeChecked();
  await expect(await chartDays()).toHaveCount(7);

  // By keyboard, as a radio group: arrows move the choice.
  await range.getByRole("radio", { name: "7 days" }).focus();
  await page.keyboard.press("ArrowRight");
  await expect(range.getByRole("radio", { name: "30 days" })).toBeChecked();
  await expect(page).toHaveURL(new RegExp(`/agents/${agent.id}$`));
  await page.keyboard.press("ArrowRight");
  await expect(page).toHaveURL(/\?range=90$/);
  await expect(words).toContainText("The last 90 days");
  await expect(await chartDays()).toHaveCount(90);
});

test("removing a webhook asks in a dialog: Cancel keeps it, confirming removes it, focus comes back (a record's Delete waits for Undo: undo.spec.ts)", async ({
  page,
}) => {
  const agent = await ownerWithAgent(page, "Cora Confirm");
  await putWebhook(deps(), agent.id, "https://hooks.switchboard-example.invalid/in");
  await page.goto(`/agents/${agent.id}/webhook`);
  const remove = page.getByTestId("webhook-delete");
  const dialog = page.getByRole("dialog");
  await remove.click();
  await expect(dialog).toHaveAccessibleName("Remove the webhook?");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(remove).toBeFocused();
  await expect(page.getByTestId("webhook-url")).toHaveText(
    "https://hooks.switchboard-example.invalid/in",
  );

  // By keyboard: Enter opens it on Cancel, Tab reaches Remove, Enter removes; focus goes to
  // the URL field, where a new one is set (the Remove button is gone).
  await page.keyboard.press("Enter");
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("webhook-none")).toBeVisible();
  await expect(page.getByTestId("webhook-url-input")).toBeFocused();
});

test("the owner's decisions card shows a person's decisions as they make them, in another browser, without a reload", async ({
  page,
  browser,
}) => {
  const agent = await ownerWithAgent(page, "Olga Owner");
  await page.goto(`/agents/${agent.id}/decisions`);
  await expect(page.getByTestId("live-status")).toHaveText("live", { timeout: 15_000 });
  const counts = page.getByTestId("decision-counts");
  await expect(counts.getByTestId("decisions-approved")).toContainText("0");
  await page.evaluate(() => {
    (window as { stayed?: boolean }).stayed = true;
  });

  const elsewhere = await browser.newContext();
  try {
    const person = await elsewhere.newPage();
    await signUp(person, "Pia Person");
    await person.goto(`/chats/add?agent=${agent.num}`);
    await person.getByTestId("consent-add").click();
    await expect(person).toHaveURL(/\/chats\/cnv_\w+$/);
    const conversationId = person.url().split("/").at(-1) as string;
    const propose = async (title: string) => {
      const { action } = await proposeAction(
        deps(),
        { agentId: agent.id },
        { conversationId, kind: "table.book", title, payload: { seats: 2 } },
      );
      const card = person.locator(`[data-testid="approval-card"][data-action-id="${action.id}"]`);
      await expect(card).toBeVisible();
      return card;
    };

    // The proposal itself wakes the owner (a charged send); the decision must wake them too.
    const first = await propose("Book a table for two");
    await first.getByTestId("card-approve").click();
    await expect(first.getByTestId("card-decision")).toContainText("Approved");
    await expect(counts.getByTestId("decisions-approved")).toContainText("1");
    await expect(page.getByTestId("decision-row").first()).toContainText(
      /Book a table for two\s*Pia Person\s*approved/,
    );

    const second = await propose("Book the terrace");
    // Rejected with a reason: the owner reads it beside the outcome.
    await second.getByTestId("card-reject").click();
    const why = person.getByTestId("reject-dialog");
    await why.getByLabel("Wrong details").check();
    await why.getByTestId("reject-reason").fill("We are six, not two");
    await why.getByTestId("reject-ok").click();
    await expect(counts.getByTestId("decisions-rejected")).toContainText("1");
    const row = page.getByTestId("decision-row").first();
    await expect(row).toContainText(/Book the terrace\s*Pia Person\s*rejected/);
    await expect(row.getByTestId("decision-reason")).toHaveText(
      "Wrong details: We are six, not two",
    );
    expect(await page.evaluate(() => (window as { stayed?: boolean }).stayed)).toBe(true);
  } finally {
    await elsewhere.close();
  }
});

test("the status page shows a webhook turning off and back on as it happens", async ({ page }) => {
  let answer = 410;
  const hook = await startWebhookReceiver(() => answer);
  try {
    const agent = await ownerWithAgent(page, "Stan Status");
    await setWebhook(page, agent.id, hook.url);
    await page.goto("/agents/status");
    await expect(page.getByTestId("live-status")).toHaveText("live", { timeout: 15_000 });
    await expect(page.getByTestId("webhooks-healthy")).toBeVisible();
    await page.evaluate(() => {
      (window as { stayed?: boolean }).stayed = true;
    });

    // A 410 turns the webhook off at once: the open page lists it.
    await addContact(deps(), (await createUser(deps(), {})).id, agent.id, []);
    const failing = page.getByTestId("failing-webhook");
    await expect(failing).toContainText("Disabled", { timeout: 10_000 });
    await expect(failing).toContainText("Ledger");
    // On a phone the sentence of what to check reads left to right under its label.
    await page.setViewportSize({ width: 390, height: 844 });
    const check = failing.locator('td[data-label="What to check"]');
    expect(await check.evaluate((td) => getComputedStyle(td).textAlign)).toBe("left");
    await page.setViewportSize({ width: 1280, height: 800 });

    // Resumed (from another tab, say) and delivered: it leaves the list.
    answer = 200;
    await resumeWebhook(deps(), agent.id);
    await expect(page.getByTestId("webhooks-healthy")).toBeVisible({ timeout: 10_000 });
    expect(await page.evaluate(() => (window as { stayed?: boolean }).stayed)).toBe(true);
  } finally {
    await hook.close();
  }
});
