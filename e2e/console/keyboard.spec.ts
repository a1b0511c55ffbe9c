import { newAgent } from "../support/fixtures";
import { expect, test } from "../support/test";
import { focusedTestId, tabTo } from "./focus";
import { signUp } from "./sign-up";

// Keyboard only from the first page on: find and add an agent, change a chat setting, sign out.
// Every Tab stop shows where focus is (tabTo checks the ring at each one).
test("a person adds an agent, changes a setting and signs out with the keyboard alone", async ({
  page,
}) => {
  test.setTimeout(60_000);
  await signUp(page, "Kai Keyboard");
  const { agent } = await newAgent({ name: "Keyed", scopes: ["messages:read", "messages:write"] });

  // A page just loaded: the first Tab goes to its first control.
  await page.goto("/chats/add");
  await tabTo(page, "find-agent-number");
  await page.keyboard.type(agent.num);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("consent-agent-name")).toHaveText("Keyed");
  await tabTo(page, "consent-add");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);

  // Settings open from the chat's header; Space turns reply-only on; Escape closes the panel
  // and gives focus back to the button that opened it.
  await tabTo(page, "chat-settings-toggle");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("chat-settings")).toBeVisible();
  await tabTo(page, "setting-reply-only");
  await page.keyboard.press("Space");
  await expect(page.getByTestId("settings-status")).toContainText("only within 24 hours");
  await expect(page.getByTestId("chat-reply-only")).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("chat-settings")).toBeHidden();
  expect(await focusedTestId(page)).toBe("chat-settings-toggle");

  // Sign out sits at the end of the navigation: back there with Shift+Tab.
  await tabTo(page, "sign-out", "Shift+Tab");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/\/signin$/);
});
