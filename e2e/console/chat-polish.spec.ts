import { mkdirSync } from "node:fs";
import path from "node:path";
import { expect, type Locator, type Page, test } from "../support/test";
import { seriousViolations } from "./axe";
import { fitsWidth, signUp } from "./sign-up";
import { chatWithNewAgent } from "./world";

/**
 * The chat's finishing touches: images open larger in a lightbox, focus never falls to the page
 * after a dialog or a decision, the composer keeps its buttons beside the text box, and /docs
 * fits a phone with a way back to the console. Screenshots of the chat land in
 * test-results/chat-shots/ for people to look at.
 */

const shots = path.resolve(import.meta.dirname, "../../test-results/chat-shots");
mkdirSync(shots, { recursive: true });
const desktop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };

/** A picture worth opening larger (a 1200×800 gradient PNG), drawn by the browser. */
function picture(page: Page): Promise<string> {
  return page.evaluate(() => {
    const canvas = document.createElement("canvas");
    canvas.width = 1200;
    canvas.height = 800;
    const context = canvas.getContext("2d") as CanvasRenderingContext2D;
    const gradient = context.createLinearGradient(0, 0, 1200, 800);
    gradient.addColorStop(0, "#2f5bea");
    gradient.addColorStop(1, "#f4b740");
    context.fillStyle = gradient;
    context.fillRect(0, 0, 1200, 800);
    context.fillStyle = "#fff";
    context.font = "bold 96px sans-serif";
    context.fillText("Pier 3", 90, 180);
    return canvas.toDataURL("image/png");
  });
}

/** What has focus, by test id (or tag), to say where focus went when it is not where expected. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const active = document.activeElement;
    return active?.getAttribute("data-testid") ?? active?.tagName.toLowerCase() ?? "none";
  });

async function expectFocused(page: Page, locator: Locator) {
  await expect(locator, `focus is on ${await focused(page)}`).toBeFocused();
  expect(await focused(page)).not.toBe("body");
}

test("a chat image opens larger in a lightbox from the same URL; Escape and Close give focus back", async ({
  page,
  request,
}) => {
  const { auth, conversationId } = await chatWithNewAgent(page, "Ines Image", [
    "messages:read",
    "messages:write",
  ]);
  const media: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("/api/console/media/")) media.push(new URL(r.url()).pathname);
  });
  const sent = await request.post("/api/agent/v1/messages", {
    headers: auth,
    data: {
      conversationId,
      type: "image",
      content: "The pier at noon",
      imageData: await picture(page),
    },
  });
  expect(sent.status()).toBe(201);

  const opener = page.getByTestId("image-open");
  const thumbnail = opener.locator("img");
  await expect(thumbnail).toHaveJSProperty("complete", true);
  const src = (await thumbnail.getAttribute("src")) as string;
  expect(src).toMatch(/^\/api\/console\/media\/msg_/);
  await expect(opener).toHaveAttribute("aria-haspopup", "dialog");

  // Clicking the picture opens it in a modal dialog named by its words; focus moves inside.
  await opener.click();
  const dialog = page.getByRole("dialog");
  await expect(dialog).toBeVisible();
  await expect(dialog).toHaveAccessibleName("The pier at noon");
  const large = dialog.getByTestId("lightbox-image");
  await expect(large).toHaveAttribute("src", src);
  await expect(large).toHaveJSProperty("complete", true);
  const [small, big] = [await thumbnail.boundingBox(), await large.boundingBox()];
  expect(big?.width ?? 0).toBeGreaterThan((small?.width ?? 0) * 1.3);
  await expectFocused(page, dialog.getByTestId("lightbox-close"));
  expect(await seriousViolations(page), "axe with the lightbox open").toEqual([]);

  // Escape closes it and focus returns to the picture that opened it.
  await page.keyboard.press("Escape");
  await expect(dialog).toHaveCount(0);
  await expectFocused(page, opener);

  // By keyboard again; the close button closes it too.
  await page.keyboard.press("Enter");
  await expect(dialog).toBeVisible();
  await expectFocused(page, dialog.getByTestId("lightbox-close"));
  await page.keyboard.press("Tab");
  await expectFocused(page, dialog.getByTestId("lightbox-close"));
  await dialog.getByTestId("lightbox-close").click();
  await expect(dialog).toHaveCount(0);
  await expectFocused(page, opener);

  // A click beside the picture closes it, as photo viewers do.
  await opener.click();
  await expect(dialog).toBeVisible();
  await page.mouse.click(8, phone.height / 2);
  await expect(dialog).toHaveCount(0);
  await expectFocused(page, opener);

  // Every picture came from the one console media URL the chat shows.
  expect(new Set(media)).toEqual(new Set([src]));
});

test("focus stays in place after approving, rejecting or editing a card, and after closing settings", async ({
  page,
  request,
}) => {
  test.setTimeout(60_000);
  const { auth, conversationId } = await chatWithNewAgent(page, "Fay Focus", [
    "messages:read",
    "messages:write",
    "tasks:read",
    "tasks:write",
  ]);
  const propose = async (title: string) => {
    const proposed = await request.post("/api/agent/v1/actions", {
      headers: auth,
      data: { conversationId, skill: "create_task", title, payload: { title } },
    });
    expect(proposed.status()).toBe(201);
  };
  await propose("Water the plants");
  await propose("Book the dentist");
  await propose("Call the bank");
  const cards = page.getByTestId("approval-card");
  await expect(cards).toHaveCount(3);
  const [approved, rejected, edited] = [cards.nth(0), cards.nth(1), cards.nth(2)];
  expect(await seriousViolations(page), "axe on a chat with cards").toEqual([]);

  // Approve by keyboard: focus ends on the link to what ran ("Done: view the task").
  await approved.getByTestId("card-approve").focus();
  await page.keyboard.press("Enter");
  await expect(approved.getByTestId("card-state")).toHaveText("approved");
  await expectFocused(page, approved.getByTestId("card-record-link"));
  await expect(approved.getByTestId("card-record-link")).toHaveText("view the task");

  // Reject: focus ends on the card's outcome line, which says what happened.
  await rejected.getByTestId("card-reject").click();
  await page.getByTestId("reject-ok").click();
  await expect(rejected.getByTestId("card-state")).toHaveText("rejected");
  const outcome = rejected.getByTestId("card-outcome");
  await expectFocused(page, outcome);
  await expect(outcome).toContainText("Rejected by you");

  // Edit: focus goes into the form; Cancel gives it back to Edit; approving the edit ends on
  // the link to the task.
  await edited.getByTestId("card-edit").click();
  await expectFocused(page, edited.getByTestId("field-title"));
  await edited.getByRole("button", { name: "Cancel" }).click();
  await expectFocused(page, edited.getByTestId("card-edit"));
  await page.keyboard.press("Enter");
  await expectFocused(page, edited.getByTestId("field-title"));
  await page.keyboard.type(" today");
  await edited.getByTestId("card-edit-form-submit").click();
  await expect(edited.getByTestId("card-state")).toHaveText("approved");
  await expectFocused(page, edited.getByTestId("card-record-link"));

  // Settings: closing them (button or Escape) gives focus back to the button that opened them.
  const toggle = page.getByTestId("chat-settings-toggle");
  await toggle.click();
  await expectFocused(page, page.getByTestId("chat-settings"));
  await page.getByTestId("chat-settings-close").click();
  await expect(page.getByTestId("chat-settings")).toHaveCount(0);
  await expectFocused(page, toggle);
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("chat-settings")).toBeVisible();
  await page.getByTestId("setting-reply-only").focus();
  await page.keyboard.press("Escape");
  await expect(page.getByTestId("chat-settings")).toHaveCount(0);
  await expectFocused(page, toggle);
});

/** The composer's text box and buttons, as laid out now. */
async function composerBoxes(page: Page) {
  const box = async (testId: string) => {
    const found = await page.getByTestId(testId).boundingBox();
    if (!found) throw new Error(`${testId} is not laid out`);
    return found;
  };
  const voiceLabel = page.getByTestId("composer-voice").locator("xpath=..");
  const voice = await voiceLabel.boundingBox();
  if (!voice) throw new Error("the voice note button is not laid out");
  return { text: await box("composer-text"), voice, send: await box("composer-send") };
}

test("the composer keeps its buttons on the text box's row, at 1280 and at 390 px", async ({
  page,
}) => {
  await chatWithNewAgent(page, "Cole Composer", ["messages:read", "messages:write"]);
  for (const viewport of [desktop, phone]) {
    await page.setViewportSize(viewport);
    await expect(page.getByTestId("composer-send")).toBeVisible();
    const { text, voice, send } = await composerBoxes(page);
    const label = `at ${viewport.width} px`;
    // One row: the buttons start right of the text box and sit within its height.
    expect(voice.x, label).toBeGreaterThanOrEqual(text.x + text.width);
    expect(send.x, label).toBeGreaterThanOrEqual(voice.x + voice.width);
    for (const button of [voice, send]) {
      expect(button.y, label).toBeGreaterThanOrEqual(text.y - 1);
      expect(button.y + button.height, label).toBeLessThanOrEqual(text.y + text.height + 1);
    }
    // The text box keeps most of the row, and nothing leaves the screen.
    expect(text.width, label).toBeGreaterThan(0.6 * (send.x + send.width - text.x));
    expect(send.x + send.width, label).toBeLessThanOrEqual(viewport.width);
    expect(await fitsWidth(page), label).toBe(true);
    // On a phone the buttons show icons only; they keep their names.
    await expect(page.getByRole("button", { name: "Send" })).toBeVisible();
    await expect(page.getByLabel("Voice note")).toBeAttached();
  }

  // A long text grows the box upwards; the buttons stay at its bottom, beside it.
  await page.getByTestId("composer-text").fill("line\n".repeat(4));
  const { text, send } = await composerBoxes(page);
  expect(text.height).toBeGreaterThan(70);
  expect(Math.abs(send.y + send.height - (text.y + text.height))).toBeLessThanOrEqual(1);
  expect(await seriousViolations(page), "axe on the chat on a phone").toEqual([]);
});

test("a spoken note shows its words once, also when the agent repeats them as the caption", async ({
  page,
  request,
}) => {
  const { auth, conversationId } = await chatWithNewAgent(page, "Vi Voice", [
    "messages:read",
    "messages:write",
  ]);
  const spoken = "The boat leaves at nine.";
  const speak = async (content: string) => {
    const sent = await request.post("/api/agent/v1/messages", {
      headers: auth,
      data: { conversationId, type: "voice", content, tts: { text: spoken } },
    });
    expect(sent.status()).toBe(201);
  };
  // The caption as the same words, then the same words in markdown (bold, a line break).
  await speak(spoken);
  await speak("The boat leaves at **nine**.\n");
  const notes = page.getByTestId("chat-message");
  await expect(notes.getByTestId("voice-player")).toHaveCount(2);
  for (const note of await notes.all()) {
    await expect(note.getByTestId("voice-transcript")).toContainText(spoken);
    expect((await note.innerText()).match(/nine/g)).toHaveLength(1);
  }
});

test("/docs fits a phone, passes axe with an operation open, and leads back to the console", async ({
  page,
}) => {
  // Swagger UI is a 1.5 MB bundle: on a busy two-core machine it takes its time to draw.
  test.setTimeout(120_000);
  await signUp(page, "Dora Docs");
  for (const viewport of [phone, desktop]) {
    await page.setViewportSize(viewport);
    await page.goto("/docs");
    await expect(page.getByTestId("api-reference").getByText("Switchboard Agent API")).toBeVisible({
      timeout: 30_000,
    });
    const label = `at ${viewport.width} px`;
    // With an operation open too: its parameters and responses must fit as well.
    await page.locator("#operations-Messaging-sendMessage .opblock-summary").click();
    // Its path is text now (no link inside the button), and the address still names it.
    await expect(page).toHaveURL(/#\/Messaging\/sendMessage$/);
    await expect(
      page.locator("#operations-Messaging-sendMessage .responses-table").first(),
    ).toBeVisible();
    const width = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(width.scroll, label).toBeLessThanOrEqual(width.client);
    for (const link of await page.locator(".docs-header a").all()) {
      const box = await link.boundingBox();
      expect(box, label).not.toBeNull();
      expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= width.client, label).toBe(
        true,
      );
    }
    // Swagger UI's markup included (init.js and docs.css mend what axe found in it).
    expect(await seriousViolations(page), `axe on /docs ${label}`).toEqual([]);
    await page.mouse.move(0, 0);
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(shots, `docs-${viewport.width}.png`) });
  }
  await page.getByTestId("docs-console").click();
  await expect(page).toHaveURL(/\/chats$/);
});

test("screenshots: a chat with an image and a card, at 1280 and 390 px", async ({
  page,
  request,
}) => {
  const { auth, conversationId } = await chatWithNewAgent(page, "Sam Screens", [
    "messages:read",
    "messages:write",
    "tasks:read",
    "tasks:write",
  ]);
  await page.getByTestId("composer-text").fill("Where do we meet?");
  await page.keyboard.press("Enter");
  const send = (data: Record<string, unknown>) =>
    request.post("/api/agent/v1/messages", { headers: auth, data: { conversationId, ...data } });
  expect((await send({ type: "text", content: "At **Pier 3**, here it is:" })).status()).toBe(201);
  expect(
    (
      await send({ type: "image", content: "The pier at noon", imageData: await picture(page) })
    ).status(),
  ).toBe(201);
  expect((await send({ type: "voice", tts: { text: "See you at eight." } })).status()).toBe(201);
  const proposed = await request.post("/api/agent/v1/actions", {
    headers: auth,
    data: {
      conversationId,
      skill: "create_task",
      title: "Remember the meeting",
      payload: { title: "Meet at Pier 3", dueDate: "2030-06-01T08:00:00Z" },
    },
  });
  expect(proposed.status()).toBe(201);
  await expect(page.getByTestId("approval-card")).toBeVisible();
  await expect(page.getByTestId("image-open").locator("img")).toHaveJSProperty("complete", true);
  for (const viewport of [desktop, phone]) {
    await page.setViewportSize(viewport);
    await expect(page.getByTestId("composer-send")).toBeVisible();
    expect(await fitsWidth(page)).toBe(true);
    await page.screenshot({ path: path.join(shots, `chat-${viewport.width}.png`) });
    await page.getByTestId("image-open").click();
    await expect(page.getByTestId("lightbox-image")).toBeVisible();
    await page.screenshot({ path: path.join(shots, `lightbox-${viewport.width}.png`) });
    await page.keyboard.press("Escape");
  }
});
