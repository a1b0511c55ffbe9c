import { expect, test } from "@playwright/test";

test("sign up, create an agent, mint a token, call the API with it; pause and resume", async ({
  page,
  request,
}) => {
  const email = `owner-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  await page.goto("/");
  await expect(page).toHaveURL(/\/signin$/);
  await page.getByRole("link", { name: "Create an account" }).click();

  await page.getByTestId("signup-name").fill("Olive Owner");
  await page.getByTestId("signup-email").fill(email);
  await page.getByTestId("signup-password").fill("correct horse battery");
  await page.getByTestId("signup-submit").click();
  await expect(page).toHaveURL(/\/agents$/);
  await expect(page.getByTestId("whoami")).toContainText("Olive Owner");
  await expect(page.getByTestId("whoami")).toContainText(/\d{3}-\d{3}-\d{3}/);

  await page.getByTestId("agent-name").fill("Concierge");
  await page.getByTestId("agent-create").click();
  await expect(page.getByTestId("agent-created")).toContainText(/800-\d{3}-\d{3}/);
  await page.getByTestId("agent-list").getByRole("link", { name: "Concierge" }).click();
  await expect(page.getByTestId("agent-title")).toHaveText("Concierge");

  await page.getByTestId("token-mint").click();
  const token = (await page.getByTestId("token-value").textContent())?.trim() ?? "";
  expect(token).toMatch(/^sbat_/);
  await expect(page.getByTestId("token-list")).toContainText("active");

  const auth = { Authorization: `Bearer agent:${token}` };
  const me = await request.get("/api/agent/v1/me", { headers: auth });
  expect(me.status()).toBe(200);
  expect(await me.json()).toMatchObject({
    displayName: "Concierge",
    num: expect.stringMatching(/^800-\d{3}-\d{3}$/),
  });

  await page.getByTestId("agent-pause").click();
  await expect(page.getByTestId("agent-state")).toHaveText("paused");
  await expect(page.getByTestId("pause-reason")).toContainText("Paused by you");
  const paused = await request.get("/api/agent/v1/me", { headers: auth });
  expect(paused.status()).toBe(403);
  expect((await paused.json()).error.code).toBe("agent_paused");

  await page.getByTestId("agent-resume").click();
  await expect(page.getByTestId("agent-state")).toHaveText("active");
  expect((await request.get("/api/agent/v1/me", { headers: auth })).status()).toBe(200);
  await expect(page.getByTestId("rate-requests")).toContainText(/\d+ \/ 300/);
});

test("profile edits show field errors from the server and save valid changes", async ({ page }) => {
  const email = `editor-${Date.now()}@example.com`;
  await page.goto("/signup");
  await page.getByTestId("signup-name").fill("Ed");
  await page.getByTestId("signup-email").fill(email);
  await page.getByTestId("signup-password").fill("correct horse battery");
  await page.getByTestId("signup-submit").click();
  await expect(page).toHaveURL(/\/agents$/);
  await page.getByTestId("agent-name").fill("Editable");
  await page.getByTestId("agent-create").click();
  await page.getByTestId("agent-created").getByRole("link").click();

  await page.getByTestId("profile-avatar").fill("http://insecure.example.com/a.png");
  await page.getByTestId("profile-save").click();
  await expect(page.getByText("must be an https URL")).toBeVisible();

  await page.getByTestId("profile-avatar").fill("https://cdn.example.com/a.png");
  await page.getByTestId("profile-name").fill("Edited Agent");
  await page.getByTestId("profile-save").click();
  await expect(page.getByTestId("agent-title")).toHaveText("Edited Agent");

  // Sign out and back in.
  await page.getByTestId("sign-out").click();
  await expect(page).toHaveURL(/\/signin/);
  await page.getByTestId("signin-email").fill(email);
  await page.getByTestId("signin-password").fill("wrong password");
  await page.getByTestId("signin-submit").click();
  await expect(page.getByTestId("signin-error")).toContainText("do not match");
  await page.getByTestId("signin-password").fill("correct horse battery");
  await page.getByTestId("signin-submit").click();
  await expect(page).toHaveURL(/\/agents$/);
  await expect(page.getByTestId("agent-list")).toContainText("Edited Agent");
});
