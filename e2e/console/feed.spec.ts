import { addContact, removeContact } from "@switchboard/core";
import { agentApi, deps, newAgent } from "../support/fixtures";
import { expect, test } from "../support/test";
import { fitsWidth, myNum, signUp } from "./sign-up";

test("a person sees the posts of the agents they added, live, and likes, comments and reposts", async ({
  page,
  request,
}, testInfo) => {
  const { agent, auth } = await newAgent({ name: "Daily Digest" });
  const api = agentApi(request, auth);
  await signUp(page, "Fern Feed");
  const num = await myNum(page);
  await addContact(deps(), num, agent.id, []);
  const first = await (
    await api.post("/posts", {
      texts: ["Good morning! Three things today.", "1. Rain after noon.", "2. Markets open late."],
      caption: "Your morning digest",
    })
  ).json();

  await page.getByTestId("nav-feed").click();
  await expect(page).toHaveURL(/\/feed$/);
  const card = page.getByTestId("feed-post").filter({ hasText: "Good morning" });
  await expect(card.getByTestId("post-author")).toHaveText("Daily Digest");
  await expect(card.getByTestId("post-text")).toHaveCount(3);
  await expect(card.getByTestId("post-caption")).toHaveText("Your morning digest");
  // A relative time ("now", "5 min"), the full local time on hover.
  await expect(card.getByTestId("relative-time")).toHaveText(/^(now|\d+ min|\d\d:\d\d)$/);
  await expect(card.getByTestId("relative-time")).toHaveAttribute("title", /\d{4}/);
  await expect(page.getByTestId("live-status")).toHaveText("live");

  // Like from the console; the agent reads the counter over its API.
  await card.getByTestId("post-like").click();
  await expect(card.getByTestId("post-like")).toHaveAttribute("aria-pressed", "true");
  await expect(card.getByTestId("post-like-count")).toHaveText("1");
  await expect
    .poll(async () => (await (await api.get(`/posts/${first.id}`)).json()).likeCount)
    .toBe(1);

  // Comment and repost.
  await card.getByTestId("post-comments-toggle").click();
  await card.getByTestId("comment-text").fill("Thanks, very handy");
  await card.getByTestId("comment-submit").click();
  await expect(card.getByTestId("post-comment")).toContainText("Thanks, very handy");
  await expect(card.getByTestId("post-comment")).toContainText("You");
  await expect(card.getByTestId("post-comment-count")).toHaveText("1");
  await card.getByTestId("post-repost").click();
  await expect(card.getByTestId("post-repost-count")).toHaveText("1");
  expect(await (await api.get(`/posts/${first.id}`)).json()).toMatchObject({
    likeCount: 1,
    commentCount: 1,
    repostCount: 1,
  });

  // Unlike takes it back.
  await card.getByTestId("post-like").click();
  await expect(card.getByTestId("post-like-count")).toHaveText("0");
  await expect
    .poll(async () => (await (await api.get(`/posts/${first.id}`)).json()).likeCount)
    .toBe(0);
  await card.getByTestId("post-like").click();
  await expect(card.getByTestId("post-like-count")).toHaveText("1");

  // A new post appears on top without a reload.
  await api.post("/posts", { texts: ["Breaking: the rain came early."] });
  await expect(page.getByTestId("feed-post").first()).toContainText("the rain came early");
  await expect(page.getByTestId("feed-post")).toHaveCount(2);

  await page.screenshot({ path: testInfo.outputPath("feed-1280x800.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByTestId("feed-post")).toHaveCount(2);
  await page.screenshot({ path: testInfo.outputPath("feed-390x844.png"), fullPage: true });
  expect(await fitsWidth(page)).toBe(true);
  await page.setViewportSize({ width: 1280, height: 800 });

  // Removing the agent takes its posts out of the feed at once; adding it back brings them back.
  await removeContact(deps(), num, agent.id);
  await expect(page.getByTestId("feed-empty")).toBeVisible();
  await addContact(deps(), num, agent.id, []);
  await expect(page.getByTestId("feed-post")).toHaveCount(2);

  // A post the agent deletes leaves the feed.
  expect((await api.delete(`/posts/${first.id}`)).status()).toBe(200);
  await expect(page.getByTestId("feed-post")).toHaveCount(1);
  await expect(page.getByTestId("feed-post")).not.toContainText("Good morning");
});

test("the feed shows only agents the person added, and says so when there is nothing", async ({
  page,
  request,
}) => {
  const { auth } = await newAgent({ name: "Stranger Bot" });
  await agentApi(request, auth).post("/posts", { texts: ["Not for you"] });
  await signUp(page, "Nora Nobody");
  await page.goto("/feed");
  await expect(page.getByTestId("feed-empty")).toBeVisible();
  await expect(page.getByTestId("feed-post")).toHaveCount(0);
});
