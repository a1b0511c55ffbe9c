import { createAgent } from "@switchboard/core";
import { deps } from "../support/fixtures";
import { expect, type Page, test } from "../support/test";
import { dropSession, myNum, signUp } from "./sign-up";

/** Every address the tab shows from now on (page loads and the router's changes alike). */
function addressesShown(page: Page): Set<string> {
  const shown = new Set<string>();
  page.on("framenavigated", (frame) => {
    if (frame === page.mainFrame()) shown.add(new URL(frame.url()).pathname);
  });
  return shown;
}

async function signInThroughTheForm(page: Page, email: string, password: string, path: string) {
  await page.goto(path);
  await page.getByTestId("signin-email").fill(email);
  await page.getByTestId("signin-password").fill(password);
  const shown = addressesShown(page);
  await page.getByTestId("signin-submit").click();
  return shown;
}

test("after sign-in the home page opens directly, never a blank / on the way", async ({
  page,
  context,
}) => {
  // Someone who owns no agent lands on their chats.
  const person = await signUp(page, "Lena Lander");
  await dropSession(page, context);
  let shown = await signInThroughTheForm(page, person.email, person.password, "/signin");
  await expect(page.getByRole("heading", { name: "Chats", level: 1 })).toBeVisible();
  expect(shown).toEqual(new Set(["/chats"]));

  // An owner lands on their agents.
  await createAgent(deps(), { ownerId: await myNum(page), displayName: "Landing Helper" });
  await dropSession(page, context);
  shown = await signInThroughTheForm(page, person.email, person.password, "/signin");
  await expect(page.getByTestId("agent-list")).toBeVisible();
  expect(shown).toEqual(new Set(["/agents"]));

  // Asked for a page, sign-in goes back to it.
  await dropSession(page, context);
  shown = await signInThroughTheForm(
    page,
    person.email,
    person.password,
    `/signin?callbackUrl=${encodeURIComponent("/inbox")}`,
  );
  await expect(page.getByRole("heading", { name: "Inbox", level: 1 })).toBeVisible();
  expect(shown).toEqual(new Set(["/inbox"]));

  // Signed in already, the sign-in page sends the person home in its answer.
  const answer = await page.request.get("/signin", { maxRedirects: 0 });
  expect(answer.status()).toBe(307);
  expect(new URL(answer.headers().location as string, "http://x").pathname).toBe("/agents");
});
