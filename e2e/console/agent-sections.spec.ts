import type { Page } from "@playwright/test";
import { addContact, createAgent, createUser } from "@switchboard/core";
import { schema } from "@switchboard/db";
import { deps } from "../support/fixtures";
import { expect, test } from "../support/test";
import { seriousViolations } from "./axe";
import { fitsWidth, myNum, signUp } from "./sign-up";
import { settled } from "./world";

/**
 * Issue 40 item 8: the owner's agent page is sections of their own (Overview, Tokens, Webhook,
 * Decisions, Profile), each at its own address with its own title, reached by a tab bar of links
 * (the current one aria-current), and the decisions paged: none of them grows with the agent's
 * history (it was one 5,200 px page at 1280 with tokens under every decision).
 */

const sections = [
  { slug: "", tab: "overview", label: "Overview", shows: "agent-state" },
  { slug: "/tokens", tab: "tokens", label: "Tokens", shows: "token-mint" },
  { slug: "/webhook", tab: "webhook", label: "Webhook", shows: "webhook-none" },
  { slug: "/decisions", tab: "decisions", label: "Decisions", shows: "decision-counts" },
  { slug: "/profile", tab: "profile", label: "Profile", shows: "profile-save" },
] as const;

/** A signed-up owner, their agent "Ledger", and `decided` decisions by one person, newest last. */
async function ownerWithDecisions(page: Page, decided: number) {
  await signUp(page, "Sal Sections");
  const agent = await createAgent(deps(), {
    ownerId: await myNum(page),
    displayName: "Ledger",
    requestedScopes: ["messages:read", "messages:write"],
  });
  const person = await createUser(deps(), { displayName: "Pat Person" });
  const { conversationId } = await addContact(deps(), person.id, agent.id, ["messages:read"]);
  const start = Date.now() - decided * 60_000;
  // Written as decided rows (what deciding leaves behind): 200 proposals through the API would
  // meet the agent's daily ceilings long before the list is long.
  await deps()
    .db.insert(schema.actions)
    .values(
      Array.from({ length: decided }, (_, i) => {
        const at = new Date(start + i * 60_000);
        const rejected = i % 3 === 0;
        return {
          id: `act_sections${String(i).padStart(4, "0")}${agent.id.slice(-6)}`,
          agentId: agent.id,
          conversationId,
          userId: person.id,
          kind: "table.book",
          title: `Proposal ${i + 1}`,
          payload: { seats: 2 },
          state: rejected ? ("rejected" as const) : ("approved" as const),
          expiresAt: new Date(at.getTime() + 3_600_000),
          createdAt: at,
          resolvedAt: at,
          decidedBy: person.id,
          decidedVia: "console" as const,
          approvedPayload: rejected ? null : { seats: 2 },
          rejectionReason: rejected ? "Not on a weekday, and never more than two of us." : null,
          rejectionChoice: rejected ? ("wrong_details" as const) : null,
        };
      }),
    );
  return agent;
}

test("the agent page's sections each have an address, a title and a tab bar, and fit at 1280 with 200 decisions", async ({
  page,
}) => {
  test.setTimeout(120_000);
  const agent = await ownerWithDecisions(page, 200);
  const base = `/agents/${agent.id}`;
  const tabs = page.getByRole("navigation", { name: "Ledger: sections" });

  for (const section of sections) {
    await page.goto(`${base}${section.slug}`);
    await settled(page);
    await expect(page.getByTestId(section.shows)).toBeVisible();
    await expect(page).toHaveTitle(
      section.slug
        ? `${section.label} · Ledger · Agents · Switchboard`
        : "Ledger · Agents · Switchboard",
    );
    await expect(page.getByTestId("agent-title")).toHaveText("Ledger");
    // The tabs are links; the current section's says so to assistive technology.
    await expect(tabs.getByRole("link")).toHaveText(sections.map((each) => each.label));
    await expect(tabs.locator('[aria-current="page"]')).toHaveText(section.label);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(height, `${section.label} at 1280 px`).toBeLessThanOrEqual(2000);
  }

  // Moving between sections in the browser: the address, the title and the current tab follow.
  await page.goto(base);
  await tabs.getByRole("link", { name: "Tokens" }).click();
  await expect(page).toHaveURL(new RegExp(`${base}/tokens$`));
  await expect(page).toHaveTitle("Tokens · Ledger · Agents · Switchboard");
  await expect(tabs.getByRole("link", { name: "Tokens" })).toHaveAttribute("aria-current", "page");
  await expect(tabs.getByRole("link", { name: "Overview" })).not.toHaveAttribute(
    "aria-current",
    /.*/,
  );
  // By keyboard: a tab is a link Enter follows.
  await tabs.getByRole("link", { name: "Decisions" }).focus();
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(new RegExp(`${base}/decisions$`));
  await expect(page.getByTestId("decision-row")).toHaveCount(20);
});

test("the decisions are paged on the server: Show older adds the next page, newest first", async ({
  page,
}) => {
  const agent = await ownerWithDecisions(page, 45);
  const reads: string[] = [];
  page.on("request", (request) => {
    if (request.url().includes("agents.decisions")) reads.push(request.url());
  });
  await page.goto(`/agents/${agent.id}/decisions`);
  const rows = page.getByTestId("decision-row");
  const older = page.getByTestId("decisions-older");
  await expect(rows).toHaveCount(20);
  await expect(rows.first()).toContainText("Proposal 45");
  await expect(rows.last()).toContainText("Proposal 26");
  const counts = page.getByTestId("decision-counts");
  await expect(counts.getByTestId("decisions-approved")).toContainText("30");
  await expect(counts.getByTestId("decisions-rejected")).toContainText("15");
  await expect(rows.first().getByTestId("decision-reason")).toHaveCount(0);

  await expect(older).toHaveText("Show older decisions");
  await older.click();
  await expect(rows).toHaveCount(40);
  await expect(rows.nth(20)).toContainText("Proposal 25");
  await older.click();
  await expect(rows).toHaveCount(45);
  await expect(rows.last()).toContainText("Proposal 1");
  await expect(older).toHaveCount(0);
  // Each older page was its own bounded read after a cursor (the first came with the HTML).
  const after = reads.filter((url) => decodeURIComponent(url).includes('"cursor":{"at"'));
  expect(after.length).toBeGreaterThanOrEqual(2);
});

test("the agent's sections pass axe and fit at 390 and 1280 px", async ({ page }) => {
  test.setTimeout(120_000);
  const agent = await ownerWithDecisions(page, 30);
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 844 });
    for (const section of sections) {
      const url = `/agents/${agent.id}${section.slug}`;
      await page.goto(url);
      await settled(page);
      await expect(page.getByTestId(section.shows)).toBeVisible();
      expect(await fitsWidth(page), `${url} at ${width} px`).toBe(true);
      expect(await seriousViolations(page), `axe on ${url} at ${width} px`).toEqual([]);
    }
  }
});
