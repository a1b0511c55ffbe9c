import { sendPersonMessage } from "@switchboard/core";
import { deps, newAgent, wavBytes } from "../support/fixtures";
import { expect, test } from "../support/test";
import { signUp } from "./sign-up";

test("a person adds an agent through its consent card and chats with it live", async ({
  page,
  request,
}) => {
  const { agent, auth } = await newAgent({
    name: "Harbor Helper",
    scopes: ["messages:read", "messages:write", "tasks:read"],
  });
  await signUp(page, "Casey Chat");

  // Find the agent by number; its consent card lists what it asks for, all checked to start.
  await page.getByTestId("nav-chats").click();
  await page.getByTestId("find-agent-number").fill(agent.num);
  await page.getByTestId("find-agent-submit").click();
  await expect(page.getByTestId("consent-agent-name")).toHaveText("Harbor Helper");
  const picker = page.getByTestId("grant-picker");
  await expect(picker.getByRole("checkbox")).toHaveCount(3);
  await expect(page.getByTestId("grant-tasks:read")).toBeChecked();
  await page.getByTestId("grant-tasks:read").uncheck();
  await page.getByTestId("consent-add").click();
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
  const conversationId = page.url().split("/").at(-1) as string;
  await expect(page.getByTestId("chat-agent-name")).toHaveText("Harbor Helper");
  await expect(page.getByTestId("live-status")).toHaveText("live");

  // The agent sees exactly the granted scopes.
  const conversations = await (
    await request.get("/api/agent/v1/conversations", { headers: auth })
  ).json();
  expect(conversations.conversations[0]).toMatchObject({
    id: conversationId,
    grantedScopes: ["messages:read", "messages:write"],
    initiation: "any",
  });

  // The person writes; the agent's long-poll receives it.
  await page.getByTestId("composer-text").fill("Hello, helper");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("chat-message").last()).toContainText("Hello, helper");
  await expect(page.getByTestId("message-read-state")).toHaveText("Sent");
  const updates = await (
    await request.get("/api/agent/v1/updates?afterSeq=0&wait=5", { headers: auth })
  ).json();
  const received = updates.events.find((e: { type: string }) => e.type === "message.received");
  expect(received.payload.message.content).toBe("Hello, helper");

  // Everything the agent does shows up without a reload: typing, read, reply, reaction, voice.
  const typing = await request.post(`/api/agent/v1/conversations/${conversationId}/typing`, {
    headers: auth,
  });
  expect(typing.ok()).toBe(true);
  await expect(page.getByTestId("agent-typing")).toHaveText("Harbor Helper is typing…");
  const read = await request.post(`/api/agent/v1/conversations/${conversationId}/read`, {
    headers: auth,
    data: { messageId: received.payload.message.id },
  });
  expect(read.ok()).toBe(true);
  await expect(page.getByTestId("message-read-state")).toHaveText("Read");
  const reply = await request.post("/api/agent/v1/messages", {
    headers: auth,
    data: { conversationId, type: "text", content: "Hi Casey! How can I help?" },
  });
  expect(reply.status()).toBe(201);
  await expect(page.getByTestId("chat-message").last()).toContainText("How can I help?");
  await expect(page.getByTestId("chat-message").last()).toHaveAttribute("data-sender", "agent");
  const mine = page.getByTestId("chat-message").filter({ hasText: "Hello, helper" });
  const reacted = await request.post(
    `/api/agent/v1/messages/${await mine.getAttribute("data-message-id")}/reactions`,
    { headers: auth, data: { emoji: "👍" } },
  );
  expect(reacted.ok()).toBe(true);
  await expect(mine.getByTestId("message-reactions")).toContainText("👍");

  const wav = wavBytes();
  const voice = await request.post("/api/agent/v1/messages", {
    headers: auth,
    data: {
      conversationId,
      type: "voice",
      content: "A voice note for you",
      audioData: `data:audio/wav;base64,${wav.toString("base64")}`,
      audioDuration: "0.1",
    },
  });
  expect(voice.status()).toBe(201);
  const player = page.getByTestId("voice-player");
  await expect(player).toBeVisible();
  // The player's source serves the stored audio to the signed-in person, seekable by range.
  const src = (await player.getAttribute("src")) as string;
  const audio = await page.request.get(src, { headers: { Range: "bytes=0-43" } });
  expect(audio.status()).toBe(206);
  expect(audio.headers()["content-type"]).toBe("audio/wav");
  expect((await audio.body()).subarray(0, 4).toString()).toBe("RIFF");
  const stranger = await request.get(src);
  expect(stranger.status()).toBe(401);

  // The person answers with a voice note from a file; the agent hears about its audio.
  await page.getByTestId("composer-voice").setInputFiles({
    name: "answer.wav",
    mimeType: "audio/wav",
    buffer: wavBytes(1600),
  });
  await expect(page.getByTestId("voice-player")).toHaveCount(2);
  await expect(page.getByTestId("chat-message").last()).toHaveAttribute("data-sender", "me");
  const later = await (
    await request.get(`/api/agent/v1/updates?afterSeq=${updates.nextSeq}&wait=5`, {
      headers: auth,
    })
  ).json();
  const voiceNote = later.events.find((e: { type: string }) => e.type === "message.received");
  expect(voiceNote.payload.message).toMatchObject({
    type: "voice",
    audio: { data: expect.stringMatching(/^\/objects\//) },
  });

  // Reading the chat marked the agent's messages read, so the list shows nothing unread.
  await expect(page.getByTestId("chat-row")).toHaveCount(1);
  await expect(page.getByTestId("chat-unread")).toHaveCount(0);
});

test("per-agent settings apply to the agent's next call: grant, reply-only, block, remove", async ({
  page,
  request,
}) => {
  const { agent, auth } = await newAgent({
    name: "Settings Bot",
    scopes: ["messages:read", "messages:write"],
  });
  await signUp(page, "Sam Settings");
  await page.goto(`/chats/add?agent=${agent.num}`);
  await page.getByTestId("consent-add").click();
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
  const conversationId = page.url().split("/").at(-1) as string;
  const send = (content: string) =>
    request.post("/api/agent/v1/messages", {
      headers: auth,
      data: { conversationId, type: "text", content },
    });
  const conversation = async () =>
    (await (await request.get("/api/agent/v1/conversations", { headers: auth })).json())
      .conversations[0];

  // Every change saves the moment it is made, and the panel says so.
  await page.getByTestId("chat-settings-toggle").click();
  await page.getByTestId("grant-messages:write").uncheck();
  await expect(page.getByTestId("settings-status")).toHaveText(/^Saved\./);
  await expect(page.getByTestId("grant-messages:write")).not.toBeChecked();
  expect((await conversation()).grantedScopes).toEqual(["messages:read"]);
  const noWrite = await send("may I?");
  expect(noWrite.status()).toBe(403);
  expect((await noWrite.json()).error).toMatchObject({
    code: "scope_not_granted",
    scope: "messages:write",
  });
  await page.getByTestId("grant-messages:write").check();
  await expect.poll(async () => (await conversation()).grantedScopes).toContain("messages:write");

  // Reply-only: with no message from the person yet, the agent may not write first.
  await page.getByTestId("setting-reply-only").check();
  await expect(page.getByTestId("chat-reply-only")).toBeVisible();
  expect((await conversation()).initiation).toBe("reply_only");
  expect((await (await send("hello?")).json()).error.code).toBe("reply_window_closed");
  await page.getByTestId("setting-reply-only").uncheck();
  await expect(page.getByTestId("chat-reply-only")).toHaveCount(0);
  expect((await send("hello!")).status()).toBe(201);
  await expect(page.getByTestId("chat-message").last()).toContainText("hello!");

  await page.getByTestId("setting-block").click();
  await expect(page.getByTestId("chat-blocked")).toBeVisible();
  expect((await (await send("blocked?")).json()).error.code).toBe("blocked");
  await page.getByTestId("setting-block").click();
  await expect(page.getByTestId("chat-blocked")).toHaveCount(0);

  await page.getByTestId("setting-remove").click();
  await page.getByTestId("setting-remove-confirm-ok").click();
  await expect(page.getByTestId("chat-not-contact")).toBeVisible();
  expect((await (await send("still there?")).json()).error.code).toBe("not_a_contact");
});

test("the consent card explains a number that is no agent, and an agent that takes no one", async ({
  page,
}) => {
  const { agent } = await newAgent({ name: "Private Bot", privacy: "nobody" });
  await signUp(page, "Nora Nobody");
  await page.goto("/chats/add?agent=800-000-000");
  await expect(page.getByTestId("consent-error")).toContainText("No agent has the number");
  await page.goto(`/chats/add?agent=${agent.num}`);
  await expect(page.getByTestId("consent-refusal")).toContainText("accepts no new contacts");
  await expect(page.getByTestId("consent-add")).toHaveCount(0);
});

test("a long chat shows its newest messages and pages back on request", async ({ page }) => {
  const { agent } = await newAgent({ name: "Archivist" });
  await signUp(page, "Lee Long");
  await page.goto(`/chats/add?agent=${agent.num}`);
  await page.getByTestId("consent-add").click();
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
  const me = (await page.getByTestId("whoami-num").textContent()) as string;
  for (let n = 1; n <= 60; n++)
    await sendPersonMessage(deps(), me, agent.id, { type: "text", content: `note ${n}` });

  const messages = page.getByTestId("chat-message");
  await expect(messages.last()).toContainText("note 60");
  await expect(messages).toHaveCount(50);
  await expect(messages.first()).toContainText("note 11");
  await page.getByTestId("chat-older").click();
  await expect(messages).toHaveCount(60);
  await expect(messages.first()).toContainText("note 1");
  await expect(page.getByTestId("chat-older")).toHaveCount(0);
});
