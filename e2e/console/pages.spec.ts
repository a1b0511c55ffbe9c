import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect, type Page, test } from "../support/test";
import { seriousViolations } from "./axe";
import { signUp } from "./sign-up";
import { consolePages, consoleWorld, settled, signedOutPages } from "./world";

/**
 * Every console page, signed out and signed in (a person who also owns an agent), on a desktop
 * and on a phone, in the light and the dark theme (the system's scheme): nothing scrolls sideways
 * (at 1280 px, and at 360-430 px), axe finds no serious or critical violation (contrast among
 * them), and a screenshot of each is written to e2e/screenshots/ (kept as CI artifacts, looked at
 * by people, never compared pixel by pixel). A page is opened once and checked in both themes: the
 * theme is CSS alone (`prefers-color-scheme`, read by no script), so switching the emulated scheme
 * on the open page shows what a page opened in it would, without loading every page twice; axe's
 * structural rules read the same page in both, so the dark pass runs only its colour rules.
 *
 * On the desktop walk each page also names itself in the browser's tab ("Inbox · Switchboard"),
 * so open tabs can be told apart: in the server's first HTML as one <title>, and in the browser,
 * where the count of cards waiting on the person goes first ("(3) …").
 */

const screenshots = path.resolve(import.meta.dirname, "../screenshots");
mkdirSync(screenshots, { recursive: true });

const viewports = {
  desktop: { width: 1280, height: 800 },
  mobile: { width: 390, height: 844 },
};
const themes = ["light", "dark"] as const;
type Theme = (typeof themes)[number];
/** Screenshot names: the light theme's as before, the dark one's marked. */
const shot = (viewport: string, theme: Theme, name: string) =>
  path.join(screenshots, `${viewport}${theme === "dark" ? "-dark" : ""}-${name}.png`);

/** Phone widths a page must fit without sideways scrolling. */
const phoneWidths = [360, 390, 430];

/** How far the page is wider than its viewport (without a scroll bar): more than 0 scrolls sideways. */
async function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
}

/** The elements that stick out past the right edge, to say what made a page too wide. */
function widest(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll("body *")]
      .filter(
        (element) =>
          element.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5,
      )
      .slice(0, 8)
      .map(
        (element) =>
          `${element.tagName.toLowerCase()}.${String(element.className).split(" ").join(".")} → ${Math.round(element.getBoundingClientRect().right)}`,
      ),
  );
}

/** `check` in the light theme, then in the dark one, on the page as it is; left light. */
async function inBothThemes(page: Page, check: (theme: Theme) => Promise<void>) {
  for (const theme of themes) {
    await page.emulateMedia({ colorScheme: theme });
    // Colours that change with a transition (a button's 120 ms) end theirs before axe reads them.
    await page.evaluate(() =>
      Promise.allSettled(
        document
          .getAnimations()
          .filter((animation) => animation instanceof CSSTransition)
          .map((animation) => animation.finished),
      ),
    );
    await check(theme);
  }
  await page.emulateMedia({ colorScheme: "light" });
}

/** A page's tab title: in the HTML the server sends, and in the browser once it has started. */
interface Title {
  served: string;
  shown: string;
}

/**
 * axe on the page as it is now (in the dark theme only the colour rules: the structure is the one
 * the light pass read), then its screenshot.
 */
async function accessibleAndCaptured(
  page: Page,
  theme: Theme,
  label: string,
  file: string,
  fullPage = true,
) {
  expect(
    await seriousViolations(page, { colours: theme === "dark" }),
    `axe on ${label} (${theme})`,
  ).toEqual([]);
  await page.screenshot({ path: file, fullPage });
}

/** Something opened on top of a page (a panel, a row's details), in both themes: fits, accessible, captured. */
async function checkOpened(
  page: Page,
  viewport: keyof typeof viewports,
  name: string,
  label: string,
  fullPage: boolean,
) {
  await inBothThemes(page, async (theme) => {
    expect(await horizontalOverflow(page)).toBeLessThanOrEqual(0);
    await accessibleAndCaptured(
      page,
      theme,
      `${label} (${viewport})`,
      shot(viewport, theme, name),
      fullPage,
    );
  });
}

async function checkPage(
  page: Page,
  viewport: keyof typeof viewports,
  name: string,
  url: string,
  title?: Title,
) {
  await page.setViewportSize(viewports[viewport]);
  const response = await page.goto(url);
  if (title) {
    // The server's HTML already carries the title: a tab shows it before any script runs.
    const html = (await response?.text()) ?? "";
    const served = [...html.matchAll(/<title>([^<]*)<\/title>/g)].map((m) =>
      m[1]?.replaceAll("&#x27;", "'").replaceAll("&amp;", "&"),
    );
    expect(served, `the <title>s of ${name} (${url}) as served`).toEqual([title.served]);
  }
  await settled(page);
  if (title) {
    await expect(page, `${name} (${url})`).toHaveTitle(title.shown);
    expect(await page.locator("head > title").count(), `one <title> on ${name}`).toBe(1);
  }
  const widths = viewport === "mobile" ? phoneWidths : [viewports.desktop.width];
  await inBothThemes(page, async (theme) => {
    for (const width of widths) {
      await page.setViewportSize({ width, height: viewports[viewport].height });
      // A page may lay out again after a resize (a chart watches its own size and redraws a
      // frame later): it must fit once it has, as a person sees it settle.
      await expect
        .poll(() => horizontalOverflow(page), {
          message: `${name} at ${width} px (${theme}) scrolls sideways`,
          timeout: 3_000,
        })
        .toBeLessThanOrEqual(0)
        .catch(async (error: Error) => {
          throw new Error(`${error.message}: ${(await widest(page)).join(", ")}`);
        });
    }
    await page.setViewportSize(viewports[viewport]);
    await accessibleAndCaptured(page, theme, `${name} (${viewport})`, shot(viewport, theme, name));
  });
}

const agentName = "Planner Extraordinaire for Households"; // consoleWorld's agent
const pageTitles: Record<keyof ReturnType<typeof consolePages>, string> = {
  chats: "Chats · Switchboard",
  add: "Add an agent · Chats · Switchboard",
  consent: "Add an agent · Chats · Switchboard",
  chat: `${agentName} · Chats · Switchboard`,
  waiting: "Waiting for you · Switchboard",
  inbox: "Inbox · Switchboard",
  thread: "The week ahead, in one place · Inbox · Switchboard",
  compose: "New email · Inbox · Switchboard",
  feed: "Feed · Switchboard",
  calls: "Calls · Switchboard",
  tasks: "Tasks · Records · Switchboard",
  reminders: "Reminders · Records · Switchboard",
  events: "Events · Records · Switchboard",
  notes: "Notes · Records · Switchboard",
  selfChat: "Self chat · Switchboard",
  agents: "Agents · Switchboard",
  agent: `${agentName} · Agents · Switchboard`,
  agentTokens: `Tokens · ${agentName} · Agents · Switchboard`,
  webhook: `Webhook · ${agentName} · Agents · Switchboard`,
  agentDecisions: `Decisions · ${agentName} · Agents · Switchboard`,
  agentProfile: `Profile · ${agentName} · Agents · Switchboard`,
  settings: "Settings · Switchboard",
  status: "Service status · Agents · Switchboard",
  missing: "Chat not found · Chats · Switchboard",
  notFound: "Page not found · Switchboard",
};

/**
 * What each of consoleWorld's pages is called. A chat the server could not read is read again in
 * the browser (decision 0049): until then the tab names the section. In the browser the count of
 * cards waiting (the world leaves 10) goes first.
 */
function consoleTitles(name: keyof typeof pageTitles): Title {
  const served = name === "missing" ? "Chats · Switchboard" : pageTitles[name];
  return { served, shown: `(10) ${pageTitles[name]}` };
}

for (const viewport of Object.keys(viewports) as (keyof typeof viewports)[]) {
  test(`signed-out pages on ${viewport}, light and dark: fit, accessible, captured`, async ({
    page,
  }) => {
    for (const [name, url] of Object.entries(signedOutPages))
      await checkPage(page, viewport, `signed-out-${name}`, url);
    // The 404 is the branded page, with ways back; every page carries the favicon.
    await expect(page.getByTestId("not-found")).toBeVisible();
    await expect(page.getByRole("link", { name: "Go to your chats" })).toBeVisible();
    const icon = (await page.locator('link[rel="icon"]').first().getAttribute("href")) as string;
    const served = await page.request.get(icon);
    expect(served.status()).toBe(200);
    expect(served.headers()["content-type"]).toContain("image/svg+xml");
  });

  test(`a new person's empty pages on ${viewport}, light and dark: fit, accessible, captured`, async ({
    page,
  }) => {
    await signUp(page, "Nell New");
    for (const [name, url] of Object.entries({
      "empty-chats": "/chats",
      "empty-agents": "/agents",
      "empty-tasks": "/records/tasks",
    }))
      await checkPage(page, viewport, name, url);
  });

  test(`every console page on ${viewport}, light and dark: fits, accessible, titled, captured`, async ({
    page,
  }) => {
    // Twenty-five pages, each opened once and checked in two themes: ~10 s a page on a busy
    // two-core machine (one theme alone took 2.4-2.9 min).
    test.setTimeout(420_000);
    const world = await consoleWorld(page);
    const pages = consolePages(world);
    const titles = viewport === "desktop" ? consoleTitles : undefined;
    for (const [name, url] of Object.entries(pages) as [keyof typeof pages, string][])
      await checkPage(page, viewport, name, url, titles?.(name));

    if (titles) {
      // Moving through the console in the browser names each page too.
      await page.goto(pages.chats);
      for (const [tab, name] of [
        ["nav-inbox", "inbox"],
        ["nav-records", "tasks"],
        ["nav-agents", "agents"],
        ["nav-waiting", "waiting"],
        ["nav-chats", "chats"],
      ] as const) {
        await page.getByTestId(tab).click();
        await expect(page).toHaveTitle(titles(name).shown);
      }
    }

    // The states a person opens on top: chat settings, a delivery's details, the account menu.
    await page.setViewportSize(viewports[viewport]);
    await page.goto(pages.chat);
    await settled(page);
    await page.getByTestId("chat-settings-toggle").click();
    await expect(page.getByTestId("chat-settings")).toBeVisible();
    await checkOpened(page, viewport, "chat-settings", "chat settings", false);

    await page.goto(pages.webhook);
    await settled(page);
    const failing = page.getByTestId("webhook-delivery").first();
    await expect(failing.getByTestId("delivery-problem")).toContainText("could not be found", {
      timeout: 15_000,
    });
    await failing.getByTestId("delivery-details-toggle").click();
    await expect(page.getByTestId("delivery-detail")).toBeVisible();
    await checkOpened(page, viewport, "webhook-details", "delivery details", true);

    if (viewport === "mobile") {
      // The tab bar keeps the main sections; the less used ones wait in the account menu.
      await expect(page.getByTestId("nav-self-chat")).toBeHidden();
      await expect(page.getByTestId("nav-docs")).toBeHidden();
      const wrappedLabels = await page
        .getByRole("navigation", { name: "Console" })
        .locator("a:visible span")
        .evaluateAll((spans) =>
          spans
            .filter((span) => {
              const range = document.createRange();
              range.selectNodeContents(span);
              return (
                new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size > 1
              );
            })
            .map((span) => span.textContent),
        );
      expect(wrappedLabels, "tab labels that wrap onto two lines").toEqual([]);
      await page.getByTestId("account-toggle").click();
      await expect(page.getByTestId("sign-out")).toBeVisible();
      await expect(page.getByTestId("menu-docs")).toBeVisible();
      await inBothThemes(page, (theme) =>
        accessibleAndCaptured(
          page,
          theme,
          "the account menu",
          shot(viewport, theme, "account-menu"),
          false,
        ),
      );
      await page.getByTestId("menu-self-chat").click();
      await expect(page).toHaveURL(/\/self-chat$/);
      await expect(page.getByTestId("menu-self-chat")).toBeHidden(); // the menu closed
    }
  });
}
