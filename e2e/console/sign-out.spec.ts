import { newAgent } from "../support/fixtures";
import { expect, test } from "../support/test";
import { signUp } from "./sign-up";

test("signing out ends the session on the server: a cookie saved before no longer works", async ({
  page,
  browser,
  request,
}) => {
  // Two browser contexts and a sign-up: ~20 s on a quiet machine.
  test.setTimeout(60_000);
  await signUp(page, "Sasha Signout");
  // A chat with stored media, to check the media route too.
  const { agent, auth } = await newAgent({ name: "Keeper" });
  await page.goto(`/chats/add?agent=${agent.num}`);
  await page.getByTestId("consent-add").click();
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
  const conversationId = page.url().split("/").at(-1) as string;
  const sent = await request.post("/api/agent/v1/messages", {
    headers: auth,
    data: {
      conversationId,
      type: "document",
      content: "notes",
      documentData: `data:text/plain;base64,${Buffer.from("secret notes").toString("base64")}`,
      documentName: "notes.txt",
    },
  });
  expect(sent.status()).toBe(201);
  const mediaPath = `/api/console/media/${(await sent.json()).message.id}`;
  const saved = await page.context().cookies();

  /** A fresh browser holding only the saved cookies, as someone who copied them would. */
  async function replay() {
    const context = await browser.newContext();
    await context.addCookies(saved);
    const tab = await context.newPage();
    await tab.goto("/agents");
    const me = await tab.request.get("/api/trpc/auth.me");
    const media = await tab.request.get(mediaPath);
    const state = { url: new URL(tab.url()).pathname, me: me.status(), media: media.status() };
    await context.close();
    return state;
  }

  // Before signing out the copy works like the original.
  expect(await replay()).toEqual({ url: "/agents", me: 200, media: 200 });

  await page.getByTestId("sign-out").click();
  await expect(page).toHaveURL(/\/signin$/);

  // Afterwards it is signed out everywhere: pages send it to sign in, calls answer 401.
  expect(await replay()).toEqual({ url: "/signin", me: 401, media: 401 });
});
