import { expect, test } from "../support/test";
import { chatWithNewAgent } from "./world";

/**
 * A chat on a phone is a screen of its own, as in the chat apps: the console's top and tab bars
 * give way, the chat's header leads back to the list, and the messages get the screen; the
 * composer stays above the on-screen keyboard (which shrinks the viewport: `resizes-content`).
 * axe on the chat at 390 px in both themes is pages.spec.ts's sweep.
 */

const phone = { width: 390, height: 844 };

test("a chat at 390 px: no tab bar, ≥ 700 px of messages, back to the list", async ({ page }) => {
  await page.setViewportSize(phone);
  const { conversationId } = await chatWithNewAgent(page, "Phoebe Phone", [
    "messages:read",
    "messages:write",
  ]);
  await page.goto(`/chats/${conversationId}`);
  await page.getByTestId("composer-text").fill("Hello from a phone");
  await page.getByTestId("composer-send").click();
  await expect(page.getByTestId("chat-messages")).toContainText("Hello from a phone");

  const tabBar = page.getByRole("navigation", { name: "Console" });
  await expect(tabBar).toBeHidden();
  const list = await page.getByTestId("chat-messages").boundingBox();
  expect(list?.height ?? 0, "the message list's height").toBeGreaterThanOrEqual(700);
  // The page itself never scrolls: the list scrolls inside the screen.
  expect(
    await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight),
  ).toBeLessThanOrEqual(0);

  // The viewport asks the browser to shrink the layout for the keyboard; with the viewport as
  // the keyboard leaves it, the composer is still on screen, at its bottom.
  await expect(page.locator('meta[name="viewport"]')).toHaveAttribute(
    "content",
    /interactive-widget=resizes-content/,
  );
  await page.setViewportSize({ width: phone.width, height: 480 });
  const send = await page.getByTestId("composer-send").boundingBox();
  expect((send?.y ?? Number.POSITIVE_INFINITY) + (send?.height ?? 0)).toBeLessThanOrEqual(480);
  await page.setViewportSize(phone);

  await page.getByTestId("chat-back").click();
  await expect(page).toHaveURL(/\/chats$/);
  await expect(tabBar).toBeVisible();
  await expect(page.getByTestId("nav-chats")).toHaveAttribute("aria-current", "page");

  // Adding an agent is not a chat: the tab bar stays.
  await page.goto("/chats/add");
  await expect(tabBar).toBeVisible();
});

test("on a wide screen the side bar stays beside a chat", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const { conversationId } = await chatWithNewAgent(page, "Wade Wide", [
    "messages:read",
    "messages:write",
  ]);
  await page.goto(`/chats/${conversationId}`);
  await expect(page.getByTestId("chat-agent-name")).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Console" })).toBeVisible();
});
