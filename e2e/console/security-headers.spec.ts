import { newAgent } from "../support/fixtures";
import { expect, type Page, test } from "../support/test";
import { signUp } from "./sign-up";

/**
 * Every console page carries the browser policy (a nonce for Next's inline scripts, nothing
 * from other hosts, no framing) and still works under it: no page reports a violation.
 */

declare global {
  interface Window {
    __cspViolations?: string[];
  }
}

function expectPagePolicy(headers: Record<string, string>) {
  const policy = headers["content-security-policy"] ?? "";
  const directives = Object.fromEntries(
    policy.split(";").map((d) => {
      const [name = "", ...values] = d.trim().split(/\s+/);
      return [name, values.join(" ")];
    }),
  );
  expect(directives["script-src"]).toMatch(/^'self' 'nonce-[A-Za-z0-9+/=]{16,}'$/);
  expect(directives).toMatchObject({
    "default-src": "'self'",
    "img-src": "'self' data: blob:",
    "media-src": "'self' blob:",
    "connect-src": "'self'",
    "object-src": "'none'",
    "frame-ancestors": "'none'",
  });
  expect(headers).toMatchObject({
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
  });
}

/** Loads `path`, checks its headers, and answers the violations the page reported. */
async function visit(page: Page, path: string, ready: () => Promise<void>) {
  const response = await page.goto(path);
  expect(response, path).not.toBeNull();
  expectPagePolicy(response?.headers() ?? {});
  await ready();
  await page.waitForLoadState("networkidle");
  return page.evaluate(() => window.__cspViolations ?? []);
}

test("every console page carries the policy and runs under it with no violation", async ({
  page,
}) => {
  test.slow(); // eleven pages, each to network idle
  const reported: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text()))
      reported.push(`${page.url()}: ${message.text()}`);
  });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener("securitypolicyviolation", (event) => {
      window.__cspViolations?.push(
        `${event.violatedDirective} ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}:${event.columnNumber}`,
      );
    });
  });

  const violations: Record<string, string[]> = {};
  const check = async (path: string, ready: () => Promise<void>) => {
    violations[path] = await visit(page, path, ready);
  };
  await check("/signin", () => expect(page.getByTestId("signin-email")).toBeVisible());
  await check("/signup", () => expect(page.getByTestId("signup-name")).toBeVisible());

  // Signing up works under the policy (hydrated form, next-auth, tRPC).
  await signUp(page, "Paula Policy");
  await page.goto("/agents");
  await page.getByTestId("agent-name").fill("Policy Bot");
  await page.getByTestId("agent-create").click();
  await page.getByTestId("agent-list").getByRole("link", { name: "Policy Bot" }).click();
  await expect(page).toHaveURL(/\/agents\/agt_\w+$/);
  const agentPath = new URL(page.url()).pathname;

  const { agent } = await newAgent({ name: "Chatty" });
  await page.goto(`/chats/add?agent=${agent.num}`);
  await page.getByTestId("consent-add").click();
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
  const chatPath = new URL(page.url()).pathname;

  const live = () => expect(page.getByTestId("live-status")).toHaveText("live");
  await check("/agents", () => expect(page.getByTestId("agent-list")).toBeVisible());
  await check(agentPath, () => expect(page.getByTestId("agent-num")).toBeVisible());
  await check(`${agentPath}/webhook`, () => expect(page.getByTestId("webhook-none")).toBeVisible());
  await check("/chats", () => expect(page.getByTestId("nav-chats")).toBeVisible());
  await check("/chats/add", () => expect(page.getByTestId("find-agent-number")).toBeVisible());
  await check(chatPath, live);
  await check("/records/tasks", () => expect(page.getByTestId("whoami")).toBeVisible());
  await check("/records/notes", () => expect(page.getByTestId("whoami")).toBeVisible());
  await check("/self-chat", () => expect(page.getByTestId("whoami")).toBeVisible());
  // The chat works under the policy: a message goes out and shows.
  await page.goto(chatPath);
  await live();
  await page.getByTestId("composer-text").fill("policy check");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("chat-message").last()).toContainText("policy check");

  expect(violations).toEqual(Object.fromEntries(Object.keys(violations).map((p) => [p, []])));
  expect(reported).toEqual([]);
});

test("an unknown page is rendered under the policy too", async ({ page }) => {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  const response = await page.goto("/no-such-page");
  expect(response?.status()).toBe(404);
  expectPagePolicy(response?.headers() ?? {});
  await page.waitForLoadState("networkidle");
  expect(violations).toEqual([]);
});

test("API answers are inert: nosniff and a sandboxing policy that loads nothing", async ({
  request,
}) => {
  for (const path of ["/api/healthz", "/api/agent/v1/me", "/api/trpc/auth.me", "/api/nope"]) {
    const response = await request.get(path);
    expect(response.headers(), path).toMatchObject({
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "x-frame-options": "DENY",
      "content-security-policy": expect.stringMatching(/default-src 'none'.*sandbox/),
    });
  }
});

test("a tRPC mutation sent from another site's page is refused 403 forbidden", async ({
  request,
}) => {
  const response = await request.post("/api/trpc/auth.signUp", {
    headers: { Origin: "https://evil.example", "Content-Type": "application/json" },
    data: { json: { displayName: "X", email: "x@evil.example", password: "long enough" } },
  });
  expect(response.status()).toBe(403);
  expect((await response.json()).error.json).toMatchObject({
    data: { httpStatus: 403, code: "forbidden" },
  });
});
