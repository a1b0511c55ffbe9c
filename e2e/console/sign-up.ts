import { type BrowserContext, expect, type Page } from "@playwright/test";

/** A fresh address per call, so tests never share an account. */
export function uniqueEmail(prefix: string): string {
  return `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

/**
 * Signs a new person up and opens the signed-in shell (on Chats). The account is made and signed
 * in through the endpoints the sign-up page calls (tRPC's `auth.signUp`, then next-auth's CSRF
 * and credentials endpoints), in the page's own context, so its cookies are the browser's: the
 * form itself is walked by first-agent.spec.ts, and every other spec starts signed in without
 * loading and hydrating it.
 */
export async function signUp(page: Page, name: string, email = uniqueEmail("person")) {
  const password = "correct horse battery";
  const made = await page.request.post("/api/trpc/auth.signUp", {
    data: { json: { displayName: name, email, password } },
  });
  expect(made.status(), await made.text()).toBe(200);
  const { csrfToken } = (await (await page.request.get("/api/auth/csrf")).json()) as {
    csrfToken: string;
  };
  await page.request.post("/api/auth/callback/credentials", {
    form: { email, password, csrfToken, json: "true" },
    maxRedirects: 0,
  });
  await page.goto("/chats");
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
