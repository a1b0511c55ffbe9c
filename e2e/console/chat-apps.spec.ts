import type { Locator, Page } from "@playwright/test";
import { scopeSentence } from "@switchboard/contract";
import { newAgent } from "../support/fixtures";
import { expect, test } from "../support/test";
import { signUp } from "./sign-up";

/** Words only developers use: scope names, sizes in bytes, ids. */
const DEVELOPER_WORDS =
  /\b(messages|emails|tasks|reminders|events|notes|calls):(read|write)\b|\d+\s?[KM]B\b|:read\b|\b(usr|agt|cnv|msg|eth|eml|evt|act|tsk|rem|cev|not|pst|pcm|cal|obj)_\w/;

const pageText = (page: Page) => page.locator("main").innerText();

/** Signs a person up, finds the agent by number and adds it with what it asks for. */
async function addThroughConsentCard(page: Page, num: string) {
  await page.getByTestId("nav-chats").click();
  await page.getByTestId("find-agent-number").fill(num);
  await page.getByTestId("find-agent-submit").click();
  await expect(page.getByTestId("consent-card")).toBeVisible({ timeout: 15_000 });
}

test("person pages describe scopes in sentences; the consent card names the agent's maker", async ({
  page,
}) => {
  const scopes = ["messages:read", "messages:write", "tasks:write", "calls:read"] as const;
  const { agent } = await newAgent({ name: "Call Keeper", scopes: [...scopes] });
  await signUp(page, "Wren Words");
  await addThroughConsentCard(page, agent.num);

  await expect(page.getByTestId("consent-owner")).toHaveText(/Made by Owner/);
  const picker = page.getByTestId("grant-picker");
  await expect(picker.getByRole("checkbox")).toHaveCount(scopes.length);
  for (const scope of scopes) {
    await expect(page.getByTestId(`grant-${scope}`)).toBeChecked();
    await expect(picker).toContainText(scopeSentence(scope));
  }
  // The calls line says what the agent really gets: everyone's words, not only the person's.
  await expect(page.getByTestId("grant-calls:read")).toHaveAccessibleName(/other people said/);
  expect(await pageText(page)).not.toMatch(DEVELOPER_WORDS);

  await page.getByTestId("consent-add").click();
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
  await page.getByTestId("chat-settings-toggle").click();
  await expect(page.getByTestId("chat-settings")).toContainText(scopeSentence("calls:read"));
  expect(await pageText(page)).not.toMatch(DEVELOPER_WORDS);

  for (const path of [
    "/chats",
    "/inbox",
    "/feed",
    "/calls",
    "/records/tasks",
    "/records/reminders",
    "/records/events",
    "/records/notes",
  ]) {
    await page.goto(path);
    await expect(page.locator("main h1").first()).toBeVisible();
    expect(await pageText(page), path).not.toMatch(DEVELOPER_WORDS);
  }
});

test("agent markdown renders bold and http links; javascript links and raw HTML stay inert", async ({
  page,
  request,
}) => {
  const { agent, auth } = await newAgent({ name: "Marker" });
  await signUp(page, "Mo Markdown");
  await addThroughConsentCard(page, agent.num);
  await page.getByTestId("consent-add").click();
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
  const conversationId = page.url().split("/").at(-1) as string;
  await expect(page.getByTestId("live-status")).toHaveText("live");

  const content = [
    "Booked for **next week**, see [the plan](https://example.com/plan?id=1).",
    "[click me](javascript:window.__xss=1) and [here](/api/console/media/x)",
    '<img src=x onerror="window.__xss=2"> <b>raw</b> <a href="javascript:1">a</a>',
  ].join("\n\n");
  const sent = await request.post("/api/agent/v1/messages", {
    headers: auth,
    data: { conversationId, type: "text", content },
  });
  expect(sent.status()).toBe(201);

  const bubble = page.getByTestId("chat-message").last();
  await expect(bubble.locator("strong")).toHaveText("next week");
  const links = bubble.locator("a");
  await expect(links).toHaveCount(1);
  await expect(links).toHaveAttribute("href", "https://example.com/plan?id=1");
  await expect(links).toHaveAttribute("rel", /noopener noreferrer/);
  await expect(links).toHaveAttribute("target", "_blank");
  await expect(bubble.getByTestId("link-host")).toHaveText("(example.com)");
  await expect(bubble).toContainText("click me");
  await expect(bubble).toContainText('<img src=x onerror="window.__xss=2">');
  await expect(bubble).toContainText("<b>raw</b>");
  await expect(bubble.locator("img, b, [onerror]")).toHaveCount(0);
  await bubble.getByText("click me").click();
  expect(await page.evaluate(() => (window as { __xss?: unknown }).__xss)).toBeUndefined();
  await expect(page).toHaveURL(new RegExp(`/chats/${conversationId}$`));
});

test("a chat reads like the apps people know: times, days, places, voice words once, one reaction control", async ({
  page,
  request,
}) => {
  test.setTimeout(60_000);
  const { agent, auth } = await newAgent({ name: "Harbour Guide" });
  await signUp(page, "Tess Times");
  await addThroughConsentCard(page, agent.num);
  await page.getByTestId("consent-add").click();
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
  const conversationId = page.url().split("/").at(-1) as string;

  // An empty chat keeps its composer at the bottom of the screen.
  const viewport = page.viewportSize() as { width: number; height: number };
  const composerBottom = async () =>
    (await page.getByTestId("composer-send").boundingBox())?.y ?? 0;
  expect(await composerBottom()).toBeGreaterThan(viewport.height - 120);

  await page.getByTestId("composer-text").fill("Where do we meet?");
  await page.keyboard.press("Enter");
  // The agent answers once the question is stored (it would otherwise be stored first).
  await expect(page.getByTestId("chat-message")).toHaveAttribute("data-message-id", /^msg_/);
  const send = (data: Record<string, unknown>) =>
    request.post("/api/agent/v1/messages", { headers: auth, data: { conversationId, ...data } });
  expect((await send({ type: "text", content: "At the harbour." })).status()).toBe(201);
  expect((await send({ type: "text", content: "By the blue door." })).status()).toBe(201);
  expect(
    (
      await send({ type: "location", latitude: "52.52", longitude: "13.405", content: "Pier 3" })
    ).status(),
  ).toBe(201);
  const spoken = "See you at eight o'clock.";
  expect((await send({ type: "voice", tts: { text: spoken } })).status()).toBe(201);

  const messages = page.getByTestId("chat-message");
  await expect(messages).toHaveCount(5);
  // One day separator, times as chat apps write them, the full time on hover.
  await expect(page.getByTestId("day-separator")).toHaveText(["Today"]);
  const time = messages.first().getByTestId("relative-time");
  await expect(time).toHaveText(/^(now|1 min)$/);
  await expect(time).toHaveAttribute("title", /\d{4}/);
  await expect(page.getByTestId("chat-row").getByTestId("relative-time")).toHaveText(/now|min/);

  // A sender's messages in a row sit together: a new sender's first one has space above it.
  // (Measured in one go: the markdown renderer arriving changes the bubbles' heights.)
  const gapsAbove = () =>
    messages.evaluateAll((items) =>
      items.map((item, i) => {
        const above = items[i - 1]?.getBoundingClientRect().bottom;
        return above === undefined ? 0 : item.getBoundingClientRect().top - above;
      }),
    );
  await expect
    .poll(async () => {
      const [, newSender = 0, sameSender = 0] = await gapsAbove();
      return newSender - sameSender;
    })
    .toBeGreaterThan(4);

  // A place opens in a map on OpenStreetMap's site; the console loads no tiles itself.
  const maps = page.getByTestId("open-in-maps");
  await expect(maps).toHaveAttribute(
    "href",
    "https://www.openstreetmap.org/?mlat=52.520000&mlon=13.405000#map=16/52.520000/13.405000",
  );
  await expect(maps).toHaveAttribute("rel", /noopener noreferrer/);

  // A spoken note shows its words once.
  const voice = messages.last();
  await expect(voice.getByTestId("voice-player")).toBeVisible();
  expect((await voice.innerText()).split(spoken).length - 1).toBe(1);

  // Each message has one control to Tab through; its menu adds a reaction and gives focus back.
  const second = messages.nth(1);
  const focusable = await second.evaluate(
    (li) => li.querySelectorAll("a[href], button, input, textarea, [tabindex='0']").length,
  );
  expect(focusable).toBe(1);
  const react = second.getByTestId("react-button");
  await react.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("menu")).toBeVisible();
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("Enter");
  await expect(second.getByTestId("message-reactions")).toContainText("❤️", { timeout: 15_000 });
  await expect(react).toBeFocused();
  // While the keyboard is in a message, its time reads in full in a label under it (decision
  // 0076: never in the line, which would move what follows); others' do not.
  const after = (time: Locator) =>
    time.evaluate((element) => getComputedStyle(element, "::after").content);
  const full = await second.getByTestId("relative-time").getAttribute("title");
  expect(await after(second.getByTestId("relative-time"))).toBe(`"${full}"`);
  expect(await after(messages.first().getByTestId("relative-time"))).toBe("none");
  // A row of the chat list has no room for it: its time stays short (its title has it in full).
  await page.getByTestId("chat-row").first().focus();
  expect(await after(page.getByTestId("chat-row").getByTestId("relative-time"))).toBe("none");
  await expect(page.getByRole("menu")).toHaveCount(0);

  // The thread fills the screen; the page itself does not scroll, at 1280 px and on a phone.
  for (const size of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    await expect(page.getByTestId("composer-send")).toBeInViewport();
    const { scroll, inner } = await page.evaluate(() => ({
      scroll: document.documentElement.scrollHeight,
      inner: window.innerHeight,
    }));
    expect(scroll, `${size.width} px`).toBeLessThanOrEqual(inner);
    expect(await composerBottom()).toBeGreaterThan(size.height * 0.75);
    await page.screenshot({ path: test.info().outputPath(`chat-${size.width}.png`) });
  }
});
