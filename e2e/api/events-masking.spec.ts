import { sendPersonMessage, setGrant, setMessageTranscript } from "@switchboard/core";
import WebSocket from "ws";
import { agentApi, dataUrl, deps, newContact, oggBytes, PNG_1X1 } from "../support/fixtures";
import { expect, test } from "../support/test";

type Event = { seq: number; type: string; payload: Record<string, unknown> };

async function eventsAfter(api: ReturnType<typeof agentApi>, afterSeq: number): Promise<Event[]> {
  return (await (await api.get(`/updates?afterSeq=${afterSeq}`)).json()).events;
}
async function cursor(api: ReturnType<typeof agentApi>): Promise<number> {
  return (await (await api.get("/updates/cursor")).json()).seq;
}

test("message.received carries the message under messages:read, and is masked without it", async ({
  request,
}) => {
  const open = await newContact({ grant: ["messages:read", "messages:write"] });
  const closed = await newContact({ grant: ["messages:write"] });
  for (const side of [open, closed]) {
    const api = agentApi(request, side.auth);
    const after = await cursor(api);
    const { message } = await sendPersonMessage(deps(), side.person.id, side.agent.id, {
      type: "image",
      content: "secret caption 12345",
      imageData: dataUrl("image/png", PNG_1X1),
    });
    const [received, ...rest] = await eventsAfter(api, after);
    expect(rest).toEqual([]);
    const from = {
      id: side.person.id,
      num: side.person.num,
      displayName: "Pat Person",
      avatarUrl: null,
      userType: "person",
    };
    if (side === open) {
      expect(received).toMatchObject({ type: "message.received" });
      expect(received?.payload).toEqual({
        conversationId: side.conversationId,
        from,
        message: {
          id: message.id,
          conversationId: side.conversationId,
          senderId: side.person.id,
          senderNum: side.person.num,
          type: "image",
          content: "secret caption 12345",
          replyToId: null,
          agentActionId: null,
          createdAt: message.createdAt,
          image: { data: expect.stringMatching(/^\/objects\//), width: null, height: null },
        },
      });
    } else {
      expect(received?.payload).toEqual({
        conversationId: side.conversationId,
        from,
        message: null,
        accessDenied: { scope: "messages:read", message: expect.stringContaining("messages:read") },
      });
      // Nothing of the content leaks anywhere in the masked event.
      expect(JSON.stringify(received)).not.toContain("secret caption");
      expect(JSON.stringify(received)).not.toContain("/objects/");
    }
  }
});

test("a voice note: audio in message.received, never its transcript; message.transcript after it, masked alike", async ({
  request,
}) => {
  const open = await newContact({ grant: ["messages:read", "messages:write"] });
  const closed = await newContact({ grant: ["messages:write"] });
  for (const side of [open, closed]) {
    const api = agentApi(request, side.auth);
    const after = await cursor(api);
    const { message } = await sendPersonMessage(deps(), side.person.id, side.agent.id, {
      type: "voice",
      content: "voice note",
      audioData: dataUrl("audio/ogg", oggBytes()),
      audioDuration: "3",
    });
    await setMessageTranscript(deps(), message.id, "the spoken words");
    // The worker's own job may have ended first with `transcript: null` (no engine installed,
    // or none that reads this audio): the words come in the last message.transcript.
    const events = await eventsAfter(api, after);
    const [received] = events;
    const transcript = events.findLast((event) => event.type === "message.transcript");
    expect(received?.type).toBe("message.received");
    expect((received?.seq ?? 0) < (transcript?.seq ?? 0)).toBe(true);
    if (side === open) {
      const shown = received?.payload.message as Record<string, unknown>;
      expect(shown).toMatchObject({
        id: message.id,
        audio: { data: message.audio?.data, duration: "3" },
      });
      expect(shown).not.toHaveProperty("transcript");
      expect(transcript?.payload).toEqual({
        conversationId: side.conversationId,
        messageId: message.id,
        from: expect.objectContaining({ id: side.person.id }),
        transcript: "the spoken words",
      });
      const history = await (
        await api.get(`/conversations/${side.conversationId}/messages`)
      ).json();
      expect(history.messages.at(-1)).toMatchObject({
        id: message.id,
        transcript: "the spoken words",
      });
    } else {
      expect(received?.payload).toMatchObject({
        message: null,
        accessDenied: { scope: "messages:read" },
      });
      expect(transcript?.payload).toEqual({
        conversationId: side.conversationId,
        messageId: message.id,
        from: expect.objectContaining({ id: side.person.id }),
        transcript: null,
        accessDenied: { scope: "messages:read", message: expect.stringContaining("messages:read") },
      });
      expect(JSON.stringify(transcript)).not.toContain("spoken words");
    }
  }
});

test("masking follows the grant when events are read: revoking masks the replay, granting shows it", async ({
  request,
}) => {
  const side = await newContact({ grant: ["messages:write"] });
  const api = agentApi(request, side.auth);
  const after = await cursor(api);
  await sendPersonMessage(deps(), side.person.id, side.agent.id, {
    type: "text",
    content: "before",
  });
  await setGrant(deps(), side.person.id, side.agent.id, ["messages:read", "messages:write"]);
  await sendPersonMessage(deps(), side.person.id, side.agent.id, {
    type: "text",
    content: "after",
  });
  const contents = async () =>
    (await eventsAfter(api, after)).map(
      (e) => (e.payload.message as { content?: string } | null)?.content ?? null,
    );
  expect(await contents()).toEqual(["before", "after"]);
  await setGrant(deps(), side.person.id, side.agent.id, ["messages:write"]);
  expect(await contents()).toEqual([null, null]);
});

test("after revoking messages:read, neither a long-poll nor a stream replay from 0 shows any content", async ({
  request,
}) => {
  const side = await newContact({ grant: ["messages:read", "messages:write"] });
  const api = agentApi(request, side.auth);
  await sendPersonMessage(deps(), side.person.id, side.agent.id, {
    type: "text",
    content: "private words 4711",
  });
  expect(JSON.stringify(await eventsAfter(api, 0))).toContain("private words 4711");
  await setGrant(deps(), side.person.id, side.agent.id, ["messages:write"]);

  const polled = await eventsAfter(api, 0);
  expect(polled.map((e) => e.type)).toEqual(["contact.added", "message.received"]);
  expect(JSON.stringify(polled)).not.toContain("private words");

  const ws = new WebSocket(
    `ws://localhost:${process.env.E2E_WS_PORT}/ws/agent/v1/stream?token=${side.token}&afterSeq=0`,
  );
  const streamed: Event[] = [];
  await new Promise<void>((resolve, reject) => {
    ws.on("error", reject);
    ws.on("message", (data) => {
      const frame = JSON.parse(String(data));
      if (frame.type === "event") streamed.push(frame.event);
      if (streamed.length === 2) resolve();
    });
  });
  ws.close();
  expect(streamed.map((e) => e.type)).toEqual(["contact.added", "message.received"]);
  expect(streamed[1]?.payload).toMatchObject({
    message: null,
    accessDenied: { scope: "messages:read" },
  });
  expect(JSON.stringify(streamed)).not.toContain("private words");
});

test("a parked long-poll is woken by a person's send within moments", async ({ request }) => {
  const side = await newContact();
  const api = agentApi(request, side.auth);
  const after = await cursor(api);
  const polling = api.get(`/updates?afterSeq=${after}&wait=20`);
  await new Promise((r) => setTimeout(r, 500)); // let it park
  const sentAt = Date.now();
  const { message } = await sendPersonMessage(deps(), side.person.id, side.agent.id, {
    type: "text",
    content: "wake up",
  });
  const response = await polling;
  const latency = Date.now() - sentAt;
  const body = await response.json();
  expect(body.events.map((e: Event) => e.type)).toEqual(["message.received"]);
  expect((body.events[0].payload.message as { id: string }).id).toBe(message.id);
  // Woken by LISTEN/NOTIFY, not by a poll interval: well under a second (asserted loosely).
  expect(latency).toBeLessThan(1000);
  console.log(`long-poll woken ${latency} ms after the send committed`);
});
