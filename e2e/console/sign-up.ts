import { type BrowserContext, expect, type Page } from "@playwright/test";

/** A fresh address per call, so tests never share an account. */
export function uniqueEmail(prefix: string): string {
  return `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/** Signs a new person up through the console and waits for the signed-in shell (on Chats). */
export async function signUp(page: Page, name: string, email = uniqueEmail("person")) {
  const password = "correct horse battery";
  await page.goto("/signup");
  await page.getByTestId("signup-name").fill(name);
  await page.getByTestId("signup-email").fill(email);
  await page.getByTestId("signup-password").fill(password);
  await page.getByTestId("signup-submit").click();
  await expect(page).toHaveURL(/\/chats$/);
  await expect(page.getByTestId("whoami")).toContainText(name);
  return { email, password };
}

/**
 * Signs out by dropping the session cookie, having left the console first: a console page that
 * finds its session gone goes to sign in by itself, which would abort the test's next `goto`.
 */
export async function dropSession(page: Page, context: BrowserContext) {
  await page.goto("about:blank");
  await context.clearCookies();
}

/** The signed-in person's number, as the console shows it. */
export async function myNum(page: Page): Promise<string> {
  return (await page.getByTestId("whoami-num").textContent()) as string;
}

/** No sideways scrolling: the page is no wider than the window. */
export function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}
