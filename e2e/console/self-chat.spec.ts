import { expect, test } from "../support/test";
import { signUp } from "./sign-up";

test("a developer key posts to the self chat, which the console shows; revoking ends it", async ({
  page,
  request,
  baseURL,
}) => {
  await signUp(page, "Dana Developer");
  await page.getByTestId("nav-self-chat").click();
  await expect(page).toHaveURL(/\/self-chat$/);
  await expect(page.getByTestId("self-messages-empty")).toBeVisible();
  await expect(page.getByTestId("curl-example")).toContainText(
    `curl -X POST ${new URL(baseURL ?? page.url()).origin}/api/v1/me/messages`,
  );
  // On a phone the long command scrolls inside its block, whole, and the page does not.
  await page.setViewportSize({ width: 390, height: 844 });
  const example = page.getByTestId("curl-example");
  const box = await example.evaluate((pre) => ({
    scrolls: pre.scrollWidth > pre.clientWidth && getComputedStyle(pre).overflowX === "auto",
    wraps: getComputedStyle(pre).whiteSpace !== "pre",
    pageOverflow: document.documentElement.scrollWidth - window.innerWidth,
  }));
  expect(box.scrolls && !box.wraps).toBe(true);
  expect(box.pageOverflow).toBeLessThanOrEqual(0);
  await page.setViewportSize({ width: 1280, height: 800 });

  await page.getByTestId("devkey-create").click();
  await expect(page.getByTestId("devkey-value-box")).toContainText("won't see it again");
  const key = (await page.getByTestId("devkey-value").textContent())?.trim() ?? "";
  expect(key).toMatch(/^sbdk_\S+$/);
  await expect(page.getByTestId("devkey-list")).toContainText("self-chat:write");

  const auth = { Authorization: `Bearer dev:${key}` };
  const posted = await request.post("/api/v1/me/messages", {
    headers: auth,
    data: { content: "deploy finished" },
  });
  expect(posted.status()).toBe(201);
  // No reload: the console's live subscription shows it.
  await expect(page.getByTestId("self-message")).toContainText(["deploy finished"]);

  await page.getByTestId("devkey-revoke").click();
  await page.getByRole("dialog").getByRole("button", { name: "Revoke key" }).click();
  await expect(page.getByTestId("devkey-list")).toContainText("revoked");
  const refused = await request.post("/api/v1/me/messages", {
    headers: auth,
    data: { content: "too late" },
  });
  expect(refused.status()).toBe(401);
  expect((await refused.json()).error.code).toBe("key_revoked");
});

test("a page whose session ends (cookie gone) goes to sign in on its next call", async ({
  page,
  context,
}) => {
  await signUp(page, "Sam Session");
  await page.getByTestId("nav-self-chat").click();
  await expect(page.getByTestId("self-messages-empty")).toBeVisible();
  await context.clearCookies();
  // The next call gets 401 unauthorized; the console sends the person to sign in.
  await page.getByTestId("devkey-create").click();
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fself-chat$/, { timeout: 10_000 });
});
