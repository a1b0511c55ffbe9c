import { expect, type Page, test } from "../support/test";
import { signUp } from "./sign-up";

/** The page's background colour, as painted. */
const background = (page: Page) =>
  page.evaluate(() => getComputedStyle(document.body).backgroundColor);
const light = "rgb(245, 246, 248)";
const dark = "rgb(13, 18, 27)";

test("the theme follows the system until the person picks one, kept for this browser without a flash", async ({
  page,
}) => {
  await page.emulateMedia({ colorScheme: "dark" });
  await signUp(page, "Theo Theme");
  // The system's scheme decides at first.
  expect(await background(page)).toBe(dark);
  await page.emulateMedia({ colorScheme: "light" });
  expect(await background(page)).toBe(light);

  // Picking Dark takes effect at once, whatever the system says.
  const choice = page.getByTestId("theme-choice");
  await expect(choice).toHaveValue("system");
  await choice.selectOption("dark");
  expect(await background(page)).toBe(dark);

  // The server's HTML already carries the choice (no light first paint), on every page.
  for (const url of ["/chats", "/inbox", "/records/tasks"]) {
    const html = await (await page.request.get(url)).text();
    expect(html, url).toMatch(/<html[^>]*data-theme="dark"/);
  }
  await page.goto("/inbox");
  expect(await background(page)).toBe(dark);
  await expect(choice).toHaveValue("dark");

  // Light holds against a dark system; "As the system" hands the choice back.
  await page.emulateMedia({ colorScheme: "dark" });
  await choice.selectOption("light");
  expect(await background(page)).toBe(light);
  await page.reload();
  expect(await background(page)).toBe(light);
  await choice.selectOption("system");
  expect(await background(page)).toBe(dark);
  await page.reload();
  await expect(choice).toHaveValue("system");
  const html = await (await page.request.get("/chats")).text();
  expect(html).not.toMatch(/<html[^>]*data-theme=/);
});
