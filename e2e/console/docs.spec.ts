import { newAgent } from "../support/fixtures";
import { expect, test } from "../support/test";
import { seriousViolations } from "./axe";

/**
 * A strict policy: the reference's own scripts and styles are same-origin files (no eval, no
 * inline code, no CDN). Next's inline bootstrap is the console's business (nonce or hash).
 */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'";

test("/docs renders the API reference without signing in, and try-it calls this instance", async ({
  page,
}) => {
  // The renderer is a 1.5 MB bundle that lays out ~40 operations; a loaded CI machine is slow.
  test.setTimeout(120_000);
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  // The page under a strict policy: same-origin scripts and styles, no eval, no CDN.
  await page.route("**/docs", async (route) => {
    const response = await route.fetch();
    await route.fulfill({
      response,
      headers: { ...response.headers(), "content-security-policy": CSP },
    });
  });
  await page.goto("/docs");
  await expect(page).toHaveURL(/\/docs$/);
  const reference = page.getByTestId("api-reference");
  await expect(reference.getByText("Switchboard Agent API")).toBeVisible({
    timeout: 30_000,
  });
  // Every section the reference promises: operations, event types, stream frames, signature
  // scheme with its snippet, limits, and the webhooks of each event type.
  for (const text of [
    "/agent/v1/messages",
    "/agent/v1/conversations/{conversationId}/messages",
    "Real-time stream (WebSocket)",
    "reply.delta",
    "verifySignature",
    "Limits",
    "300 per minute per agent",
  ])
    await expect(reference.getByText(text, { exact: false }).first()).toBeVisible();
  await expect(reference.locator(".opblock-tag-section").first()).toBeVisible();
  await expect(reference.getByText("Webhooks", { exact: true }).first()).toBeVisible();
  await expect(reference.getByText("message.received").first()).toBeVisible();
  await page.screenshot({ path: "test-results/e2e/docs.png", fullPage: false });

  // Try it: authorize with an agent token and call GET /agent/v1/me on this instance.
  const { agent, token } = await newAgent({ name: "Docs Agent" });
  await reference
    .getByRole("button", { name: /Authorize/ })
    .first()
    .click();
  const dialog = page.locator(".modal-ux");
  await dialog.locator("input").first().fill(`agent:${token}`);
  await dialog.getByRole("button", { name: "Apply credentials" }).first().click();
  await dialog.getByRole("button", { name: "Close" }).first().click();
  await expect(dialog).toBeHidden();
  const me = reference.locator("#operations-Profile-getMe");
  await me.getByRole("button", { name: "GET /agent/v1/me", exact: false }).first().click();
  await me.getByRole("button", { name: "Execute" }).click();
  const live = me.locator(".live-responses-table");
  // The call answers in milliseconds; the renderer then lays the answer out, slowly on a loaded
  // CI machine (once over 10 s, with the 200 already received).
  await expect(live.locator("tbody .response-col_status").first()).toHaveText("200", {
    timeout: 30_000,
  });
  await expect(live).toContainText(agent.num);
  await page.screenshot({ path: "test-results/e2e/docs-try-it.png", fullPage: false });
  // Only Next's own inline bootstrap scripts trip the policy.
  expect(violations.filter((v) => !/Executing inline script/.test(v))).toEqual([]);

  // The Developer API is its own document, one link away.
  await page.getByTestId("docs-other-api").click();
  await expect(page).toHaveURL(/\/docs\?api=dev$/);
  await expect(reference.getByText("Switchboard Developer API")).toBeVisible({ timeout: 30_000 });
  await expect(reference.getByText("/v1/me/messages").first()).toBeVisible();
  await expect(reference.getByText("/agent/v1/messages")).toHaveCount(0);
});

test("the console nav links to the reference", async ({ page }) => {
  const { signUp } = await import("./sign-up");
  await signUp(page, "Reader");
  await page.getByRole("link", { name: "API reference" }).click();
  await expect(page).toHaveURL(/\/docs$/);
});

test("the reference draws even when its start script runs before the page body is parsed", async ({
  page,
}) => {
  // React places the async start script in <head>; from the cache it can run before the body
  // exists. Made certain here: a script at the top of the body holds the parser for a moment.
  test.setTimeout(120_000);
  await page.route("**/docs", async (route) => {
    const response = await route.fetch();
    const html = await response.text();
    const nonce = html.match(/nonce="([^"]+)"/)?.[1] ?? "";
    await route.fulfill({
      response,
      body: html.replace(
        /<body([^>]*)>/,
        `<body$1><script src="/docs/hold-parser.js" nonce="${nonce}"></script>`,
      ),
    });
  });
  await page.route("**/docs/hold-parser.js", async (route) => {
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await route.fulfill({ contentType: "text/javascript", body: "" });
  });
  await page.goto("/docs");
  await expect(page.getByTestId("api-reference").getByText("Switchboard Agent API")).toBeVisible({
    timeout: 30_000,
  });
});

test("the quickstart and MCP guides read as pages with this instance's addresses, on a phone too", async ({
  page,
  baseURL,
}) => {
  // Four axe runs on long pages; CI's two cores are busy. (The reference's header links here:
  // quickstart.spec in the API project checks its links without loading its 1.5 MB renderer.)
  test.setTimeout(120_000);
  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1280, height: 800 },
  ]) {
    const label = `at ${viewport.width} px`;
    await page.setViewportSize(viewport);
    await page.goto("/docs/quickstart");
    await expect(page).toHaveTitle("Quickstart · Switchboard");
    const guide = page.getByTestId("docs-guide");
    await expect(guide.getByRole("heading", { level: 1 })).toHaveText(/^Quickstart/);
    // Commands name this instance, not the default port the file was written for.
    await expect(
      guide.locator("pre").filter({ hasText: `${baseURL}/api/agent/v1/me` }),
    ).toHaveCount(1);
    // A file of the repository is words here, not a link this server cannot answer.
    await expect(guide.locator('a[href*="examples"]')).toHaveCount(0);
    const fits = () =>
      page.evaluate(
        () => document.documentElement.scrollWidth <= document.documentElement.clientWidth,
      );
    expect(await fits(), `the quickstart ${label}`).toBe(true);
    expect(await seriousViolations(page), `axe on the quickstart ${label}`).toEqual([]);

    // The guides link to each other, and back to the console.
    await guide.getByRole("link", { name: "docs/mcp.md" }).click();
    await expect(page).toHaveURL(/\/docs\/mcp$/);
    await expect(guide.getByRole("heading", { level: 1 })).toHaveText(
      "Any MCP client as a Switchboard agent",
    );
    expect(await fits(), `the MCP guide ${label}`).toBe(true);
    expect(await seriousViolations(page), `axe on the MCP guide ${label}`).toEqual([]);
  }
  await page.getByTestId("docs-console").click();
  await expect(page).toHaveURL(/\/signin/);
});
