import { addContact, findUser, sendAgentMessage, sendPersonEmail } from "@switchboard/core";
import { agentApi, deps, newAgent } from "../support/fixtures";
import { expect, test } from "../support/test";
import { myNum, signUp } from "./sign-up";

/**
 * An agent's markdown reads as the chat shows it everywhere else too: the chat list's preview and
 * the inbox list's in plain words (no markers), the inbox thread rendered by the same safe
 * renderer (raw HTML stays text, only http(s) links work).
 */
test("previews show an agent's markdown as plain words; an inbox thread renders it, inertly", async ({
  page,
  request,
}) => {
  const { agent, auth } = await newAgent({
    name: "Markdown Mailer",
    scopes: ["messages:read", "messages:write", "emails:read", "emails:write"],
  });
  await signUp(page, "Mara Markdown");
  const me = await findUser(deps(), await myNum(page));
  const { conversationId } = await addContact(deps(), me.id, agent.id, [
    "messages:read",
    "messages:write",
    "emails:read",
    "emails:write",
  ]);
  await sendAgentMessage(
    deps(),
    { agentId: agent.id },
    { conversationId, type: "text", content: "Here is **your plan** for _Tuesday_: `09:00` run" },
  );

  await page.goto("/chats");
  const preview = page.getByTestId("chat-row-preview");
  await expect(preview).toHaveText("Here is your plan for Tuesday: 09:00 run");

  // The agent answers an email in markdown, with raw HTML and links of every kind.
  const { threadId } = await sendPersonEmail(deps(), me.id, {
    to: [agent.num],
    subject: "The week",
    content: "What is on **Tuesday**?", // a person's text stays as written
  });
  const reply = await agentApi(request, auth).post(`/emails/${threadId}/messages`, {
    content: [
      "## Tuesday",
      "",
      "- **Dentist** at 09:00",
      "- see [the map](https://example.com/map) and [this](javascript:alert(1))",
      "",
      '<img src=x onerror="window.__hit=1"> <a href="/api/x">raw</a>',
    ].join("\n"),
  });
  expect(reply.status()).toBe(201);

  await page.goto(`/inbox/${threadId}`);
  const [mine, theirs] = [
    page.getByTestId("email-message").first(),
    page.getByTestId("email-message").last(),
  ];
  await expect(theirs).toHaveAttribute("data-sender", "agent");
  const body = theirs.getByTestId("markdown");
  await expect(body.locator("strong", { hasText: "Tuesday" })).toBeVisible(); // the heading
  await expect(body.locator("li strong")).toHaveText("Dentist");
  await expect(body).not.toContainText("**");
  await expect(body).not.toContainText("##");
  // Only the http(s) link is a link; the script URL and the raw HTML stay text.
  await expect(body.locator("a")).toHaveCount(1);
  await expect(body.getByRole("link", { name: "the map" })).toHaveAttribute(
    "href",
    "https://example.com/map",
  );
  await expect(body.getByRole("link", { name: "the map" })).toHaveAttribute(
    "rel",
    "noopener noreferrer nofollow",
  );
  await expect(body).toContainText('<img src=x onerror="window.__hit=1">');
  await expect(body.locator("img")).toHaveCount(0);
  expect(await page.evaluate(() => (window as { __hit?: number }).__hit)).toBeUndefined();
  // The person's own email is not markdown: shown as written.
  await expect(mine).toContainText("What is on **Tuesday**?");
  await expect(mine.getByTestId("markdown")).toHaveCount(0);

  // The inbox list's preview of the agent's email is plain words too.
  await expect(page.getByTestId("inbox-thread-preview")).toContainText(
    "Tuesday Dentist at 09:00 see the map and this",
  );
  await expect(page.getByTestId("inbox-thread-preview")).not.toContainText("**");
});
