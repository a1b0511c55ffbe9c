import { expect, test } from "../support/test";
import { consolePages, consoleWorld, settled } from "./world";

/**
 * Every console page names itself in the browser's tab ("Inbox · Switchboard"), so open tabs can
 * be told apart: from the server's first HTML, as one <title>, and again after moving between
 * pages in the browser, where the count of cards waiting on the person goes first ("(3) …").
 */
test("every console page has its own title", async ({ page }) => {
  // Twenty-five pages, each fetched and then opened and settled in the browser: ~4 s a page
  // on a busy two-core machine (CI took 126 s of a former 120 s).
  test.setTimeout(240_000);
  const world = await consoleWorld(page);
  const pages = consolePages(world);
  const agent = "Planner Extraordinaire for Households";
  const expected: Record<keyof typeof pages, string> = {
    chats: "Chats · Switchboard",
    add: "Add an agent · Chats · Switchboard",
    consent: "Add an agent · Chats · Switchboard",
    chat: `${agent} · Chats · Switchboard`,
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
    agent: `${agent} · Agents · Switchboard`,
    agentTokens: `Tokens · ${agent} · Agents · Switchboard`,
    webhook: `Webhook · ${agent} · Agents · Switchboard`,
    agentDecisions: `Decisions · ${agent} · Agents · Switchboard`,
    agentProfile: `Profile · ${agent} · Agents · Switchboard`,
    settings: "Settings · Switchboard",
    status: "Service status · Agents · Switchboard",
    missing: "Chat not found · Chats · Switchboard",
    notFound: "Page not found · Switchboard",
  };
  // A chat the server could not read is read again in the browser (decision 0049): until then
  // the tab names the section.
  const served: Partial<typeof expected> = { missing: "Chats · Switchboard" };
  // In the browser the count of cards waiting (the world leaves 10) goes before each title.
  const waiting = "(10) ";
  for (const [name, url] of Object.entries(pages) as [keyof typeof pages, string][]) {
    // The server's HTML already carries the title: a tab shows it before any script runs.
    const html = await (await page.request.get(url)).text();
    const titles = [...html.matchAll(/<title>([^<]*)<\/title>/g)].map((m) =>
      m[1]?.replaceAll("&#x27;", "'").replaceAll("&amp;", "&"),
    );
    expect(titles, `the <title>s of ${name} (${url}) as served`).toEqual([
      served[name] ?? expected[name],
    ]);
    await page.goto(url);
    await settled(page);
    await expect(page, `${name} (${url})`).toHaveTitle(waiting + expected[name]);
    expect(await page.locator("head > title").count(), `one <title> on ${name}`).toBe(1);
  }

  // Moving through the console in the browser names each page too.
  await page.goto(pages.chats);
  for (const [tab, title] of [
    ["nav-inbox", expected.inbox],
    ["nav-records", expected.tasks],
    ["nav-agents", expected.agents],
    ["nav-waiting", expected.waiting],
    ["nav-chats", expected.chats],
  ] as const) {
    await page.getByTestId(tab).click();
    await expect(page).toHaveTitle(waiting + title);
  }
});
