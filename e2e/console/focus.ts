import { expect, type Page } from "@playwright/test";

/** The focused element's test id ("" when it has none or focus is on the body). */
export const focusedTestId = (page: Page) =>
  page.evaluate(() => document.activeElement?.getAttribute("data-testid") ?? "");

/** How the focused element shows its focus: outline colour and width, else its box shadow. */
export const focusRing = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    if (!element || element === document.body) return "none";
    const style = getComputedStyle(element);
    return style.outlineStyle !== "none" && style.outlineWidth !== "0px"
      ? `${style.outlineColor} ${style.outlineWidth}`
      : style.boxShadow;
  });

/** The focused element as a failure message names it: its tag, test id and first words. */
const describeFocus = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement;
    if (!element) return "nothing";
    const id = element.getAttribute("data-testid");
    const words = element.textContent?.trim().slice(0, 40) ?? "";
    return `${element.tagName.toLowerCase()}${id ? `[${id}]` : ""} "${words}"`;
  });

/**
 * Presses `key` (Tab, or Shift+Tab to go back) until the element with `testId` has focus,
 * checking at every stop that focus is visible. Fails after `limit` presses.
 */
export async function tabTo(page: Page, testId: string, key = "Tab", limit = 60) {
  for (let presses = 0; presses < limit; presses++) {
    if ((await focusedTestId(page)) === testId) return;
    await page.keyboard.press(key);
    expect(await focusRing(page), `focus ring on ${await describeFocus(page)}`).not.toBe("none");
  }
  expect(await focusedTestId(page)).toBe(testId);
}
