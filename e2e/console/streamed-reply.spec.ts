import WebSocket from "ws";
import { expectServerFrame } from "../support/contract";
import { newAgent } from "../support/fixtures";
import { expect, test } from "../support/test";
import { signUp } from "./sign-up";

/** An agent's stream connection with a queue of the frames it received. */
async function openStream(token: string) {
  const ws = new WebSocket(
    `ws://localhost:${process.env.E2E_WS_PORT}/ws/agent/v1/stream?token=${token}`,
  );
  const frames: Record<string, unknown>[] = [];
  ws.on("message", (data) => frames.push(JSON.parse(data.toString())));
  await new Promise((resolve, reject) => {
    ws.once("open", resolve);
    ws.once("error", reject);
  });
  const next = async (type: string) => {
    await expect.poll(() => frames.some((f) => f.type === type)).toBe(true);
    const index = frames.findIndex((f) => f.type === type);
    const frame = frames.splice(index, 1)[0];
    expectServerFrame(frame);
    return frame as Record<string, unknown>;
  };
  await next("hello");
  return { send: (frame: object) => ws.send(JSON.stringify(frame)), next, close: () => ws.close() };
}

test("a streamed reply grows in the person's chat, then stays as one message", async ({
  page,
  request,
}) => {
  const { agent, token, auth } = await newAgent({ name: "Streamer" });
  await signUp(page, "Rita Reader");
  await page.goto(`/chats/add?agent=${agent.num}`);
  await page.getByTestId("consent-add").click();
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
  const conversationId = page.url().split("/").at(-1) as string;
  await expect(page.getByTestId("live-status")).toHaveText("live");

  const stream = await openStream(token);
  try {
    stream.send({ type: "reply.start", streamId: "r1", conversationId });
    const started = await stream.next("reply.started");
    expect(started).toMatchObject({ streamId: "r1", conversationId });
    const growing = page.getByTestId("streaming-reply");

    stream.send({ type: "reply.delta", streamId: "r1", text: "Checking the " });
    await expect(growing).toHaveText(/^Checking the\s*$/);
    stream.send({ type: "reply.delta", streamId: "r1", text: "timetable… " });
    await expect(growing).toContainText("Checking the timetable…");
    stream.send({ type: "reply.delta", streamId: "r1", text: "the 9:15 is on time." });
    await expect(growing).toContainText("the 9:15 is on time.");

    stream.send({ type: "reply.end", streamId: "r1" });
    const ended = await stream.next("reply.ended");
    const message = ended.message as { id: string; content: string };
    expect(message).toMatchObject({
      id: started.messageId,
      content: "Checking the timetable… the 9:15 is on time.",
    });
    await expect(growing).toHaveCount(0);
    const stored = page.locator(`[data-message-id="${message.id}"]`);
    await expect(stored).toContainText("the 9:15 is on time.");

    const history = await (
      await request.get(`/api/agent/v1/conversations/${conversationId}/messages`, {
        headers: auth,
      })
    ).json();
    expect(history.messages.map((m: { id: string }) => m.id)).toEqual([message.id]);

    // An aborted reply leaves nothing behind in the chat.
    stream.send({ type: "reply.start", streamId: "r2", conversationId });
    await stream.next("reply.started");
    stream.send({ type: "reply.delta", streamId: "r2", text: "Actually, never mind" });
    await expect(growing).toContainText("never mind");
    stream.send({ type: "reply.abort", streamId: "r2" });
    await expect(growing).toHaveCount(0);
    await expect(page.getByTestId("chat-message")).toHaveCount(1);
  } finally {
    stream.close();
  }
});
