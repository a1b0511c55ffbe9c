import { expect, test } from "../support/test";
import { dropSession, signUp, uniqueEmail } from "./sign-up";

test("sign up, create an agent, mint a token, call the API with it; pause and resume", async ({
  page,
  request,
}) => {
  await page.goto("/");
  await expect(page).toHaveURL(/\/signin$/);
  await page.getByRole("link", { name: "Create an account" }).click();
  await expect(page).toHaveURL(/\/signup$/);

  await page.getByTestId("signup-name").fill("Olive Owner");
  await page.getByTestId("signup-email").fill(uniqueEmail("owner"));
  await page.getByTestId("signup-password").fill("correct horse battery");
  await page.getByTestId("signup-submit").click();
  // A new person starts on Chats; Agents is one tap away.
  await expect(page).toHaveURL(/\/chats$/);
  await expect(page.getByTestId("whoami")).toContainText("Olive Owner");
  await expect(page.getByTestId("whoami-num")).toHaveText(/^\d{3}-\d{3}-\d{3}$/);
  await page.getByTestId("nav-agents").click();

  await page.getByTestId("agent-name").fill("Concierge");
  await page.getByTestId("agent-create").click();
  await expect(page.getByTestId("agent-created")).toContainText(/800-\d{3}-\d{3}/);
  await page.getByTestId("agent-list").getByRole("link", { name: "Concierge" }).click();
  await expect(page.getByTestId("agent-title")).toHaveText("Concierge");
  await expect(page.getByTestId("agent-state")).toHaveText("active");

  await page.getByTestId("agent-tab-tokens").click();
  await page.getByTestId("token-mint").click();
  await expect(page.getByTestId("token-value-box")).toContainText("won't see it again");
  const token = (await page.getByTestId("token-value").textContent())?.trim() ?? "";
  expect(token).toMatch(/^sbat_\S+$/);
  await expect(page.getByTestId("token-list")).toContainText("active");

  const auth = { Authorization: `Bearer agent:${token}` };
  const me = await request.get("/api/agent/v1/me", { headers: auth });
  expect(me.status()).toBe(200);
  expect(await me.json()).toMatchObject({
    displayName: "Concierge",
    userType: "agent",
    num: expect.stringMatching(/^800-\d{3}-\d{3}$/),
  });

  await page.getByTestId("agent-tab-overview").click();
  await page.getByTestId("agent-pause").click();
  await page.getByRole("dialog").getByRole("button", { name: "Pause agent" }).click();
  await expect(page.getByTestId("agent-state")).toHaveText("paused");
  await expect(page.getByTestId("pause-reason")).toContainText("Paused by you");
  const paused = await request.get("/api/agent/v1/me", { headers: auth });
  expect(paused.status()).toBe(403);
  expect((await paused.json()).error.code).toBe("agent_paused");

  await page.getByTestId("agent-resume").click();
  await expect(page.getByTestId("agent-state")).toHaveText("active");
  const resumed = await request.get("/api/agent/v1/me", { headers: auth });
  expect(resumed.status()).toBe(200);
  await expect(page.getByTestId("rate-requests")).toContainText(/\d+ \/ 300/);
});

test("a token is shown once; revoking it (after confirming) ends its API access", async ({
  page,
  request,
}) => {
  await signUp(page, "Rita Revoker");
  await page.getByTestId("nav-agents").click();
  await page.getByTestId("agent-name").fill("Short-lived");
  await page.getByTestId("agent-create").click();
  await page.getByTestId("agent-created").getByRole("link").click();
  await page.getByTestId("agent-tab-tokens").click();
  await page.getByTestId("token-mint").click();
  const token = (await page.getByTestId("token-value").textContent())?.trim() ?? "";
  const auth = { Authorization: `Bearer agent:${token}` };
  expect((await request.get("/api/agent/v1/me", { headers: auth })).status()).toBe(200);

  await page.reload();
  await expect(page.getByTestId("token-list")).toContainText("active");
  await expect(page.getByTestId("token-value")).toHaveCount(0);
  await expect(page.getByTestId("token-list")).not.toContainText(token);

  // Cancelling the confirmation keeps the token; confirming revokes.
  await page.getByTestId("token-revoke").click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toContainText("Revoke token");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByTestId("token-list")).toContainText("active");
  expect((await request.get("/api/agent/v1/me", { headers: auth })).status()).toBe(200);

  await page.getByTestId("token-revoke").click();
  await dialog.getByRole("button", { name: "Revoke token" }).click();
  await expect(page.getByTestId("token-list")).toContainText("revoked");
  const revoked = await request.get("/api/agent/v1/me", { headers: auth });
  expect(revoked.status()).toBe(401);
  expect((await revoked.json()).error.code).toBe("token_revoked");
});

test("profile edits show field errors from the server and save valid changes", async ({ page }) => {
  const { email, password } = await signUp(page, "Ed");
  await page.getByTestId("nav-agents").click();
  await page.getByTestId("agent-name").fill("Editable");
  await page.getByTestId("agent-create").click();
  await page.getByTestId("agent-created").getByRole("link").click();
  await page.getByTestId("agent-tab-profile").click();

  await page.getByTestId("profile-avatar").fill("http://insecure.example.com/a.png");
  await page.getByTestId("profile-save").click();
  await expect(page.getByText(/must be an https URL/i)).toBeVisible();
  await expect(page.getByTestId("profile-avatar")).toHaveAttribute("aria-invalid", "true");

  await page.getByTestId("profile-avatar").fill("https://cdn.example.com/a.png");
  await page.getByTestId("profile-name").fill("Edited Agent");
  await page.getByTestId("profile-bio").fill("Books tables and answers questions.");
  await page.getByTestId("profile-scopes").getByLabel("tasks:read").check();
  await page.getByTestId("profile-save").click();
  await expect(page.getByTestId("agent-title")).toHaveText("Edited Agent");
  await expect(page.getByTestId("profile-saved")).toBeVisible();
  await page.reload();
  await expect(page.getByTestId("profile-bio")).toHaveValue("Books tables and answers questions.");
  await expect(page.getByTestId("profile-scopes").getByLabel("tasks:read")).toBeChecked();

  // Sign out and back in.
  await page.getByTestId("sign-out").click();
  await expect(page).toHaveURL(/\/signin/);
  await page.getByTestId("signin-email").fill(email);
  await page.getByTestId("signin-password").fill("wrong password");
  await page.getByTestId("signin-submit").click();
  await expect(page.getByTestId("signin-error")).toContainText("do not match");
  await page.getByTestId("signin-password").fill(password);
  await page.getByTestId("signin-submit").click();
  // An owner lands on Agents.
  await expect(page).toHaveURL(/\/agents$/);
  await expect(page.getByTestId("agent-list")).toContainText("Edited Agent");
});

test("console pages send signed-out visitors to sign in, and sign-in brings them back", async ({
  page,
}) => {
  for (const path of ["/agents", "/agents/agt_unknown", "/self-chat", "/records/notes"]) {
    await page.goto(path);
    await expect(page).toHaveURL(`/signin?callbackUrl=${encodeURIComponent(path)}`);
  }
  await page.goto("/chats/add?agent=800-123-456");
  await expect(page).toHaveURL(
    `/signin?callbackUrl=${encodeURIComponent("/chats/add?agent=800-123-456")}`,
  );
  // Sign up from there (the link keeps where to go back to), and land on the page asked for.
  await page.getByRole("link", { name: "Create an account" }).click();
  await page.getByTestId("signup-name").fill("Rhea Return");
  await page.getByTestId("signup-email").fill(uniqueEmail("return"));
  await page.getByTestId("signup-password").fill("correct horse battery");
  await page.getByTestId("signup-submit").click();
  await expect(page).toHaveURL("/chats/add?agent=800-123-456");
});

test("sign-in goes back only to a page of this site", async ({ page, context }) => {
  const { email, password } = await signUp(page, "Otto Offsite");
  await dropSession(page, context);
  for (const target of ["https://evil.example/phish", "//evil.example/x", "/\\evil.example"]) {
    await page.goto(`/signin?callbackUrl=${encodeURIComponent(target)}`);
    await page.getByTestId("signin-email").fill(email);
    await page.getByTestId("signin-password").fill(password);
    await page.getByTestId("signin-submit").click();
    // A person who owns no agent lands on Chats, never on the other site.
    await expect(page).toHaveURL(/\/chats$/);
    await dropSession(page, context);
  }
  await page.goto(`/signin?callbackUrl=${encodeURIComponent("/records/events")}`);
  await page.getByTestId("signin-email").fill(email);
  await page.getByTestId("signin-password").fill(password);
  await page.getByTestId("signin-submit").click();
  await expect(page).toHaveURL(/\/records\/events$/);
});
