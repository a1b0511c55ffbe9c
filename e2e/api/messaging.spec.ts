import { expect, test } from "@playwright/test";
import { sendPersonMessage, setMessageTranscript } from "@switchboard/core";
import { deps, newAgent, newContact, PNG_1X1, wavBytes } from "../support/fixtures";
import { expectError } from "../support/http";

const dataUrl = (mime: string, bytes: Buffer) => `data:${mime};base64,${bytes.toString("base64")}`;

test("send by number or conversation, list conversations, page history oldest-first", async ({
  request,
}) => {
  const { auth, person, conversationId, agent } = await newContact();
  const first = await request.post("/api/agent/v1/messages", {
    headers: auth,
    data: { to: person.num, type: "text", content: "one" },
  });
  expect(first.status(), await first.text()).toBe(201);
  const body = await first.json();
  expect(body).toEqual({
    conversationId,
    message: {
      id: expect.stringMatching(/^msg_/),
      conversationId,
      senderId: agent.id,
      type: "text",
      content: "one",
      replyToId: null,
      agentActionId: null,
      createdAt: expect.any(String),
    },
  });
  for (const content of ["two", "three"])
    expect(
      (
        await request.post("/api/agent/v1/messages", {
          headers: auth,
          data: { conversationId, type: "text", content },
        })
      ).status(),
    ).toBe(201);

  const list = await (await request.get("/api/agent/v1/conversations", { headers: auth })).json();
  expect(list.conversations).toEqual([
    {
      id: conversationId,
      participant: {
        id: person.id,
        num: person.num,
        displayName: "Pat Person",
        avatarUrl: null,
        userType: "person",
      },
      grantedScopes: ["messages:read", "messages:write"],
      initiation: "any",
      lastMessageAt: expect.any(String),
      createdAt: expect.any(String),
    },
  ]);

  const page = await (
    await request.get(`/api/agent/v1/conversations/${conversationId}/messages?limit=2`, {
      headers: auth,
    })
  ).json();
  expect(page.messages.map((m: { content: string }) => m.content)).toEqual(["two", "three"]);
  expect(page.hasMore).toBe(true);
  const older = await (
    await request.get(
      `/api/agent/v1/conversations/${conversationId}/messages?limit=2&before=${page.messages[0].id}`,
      { headers: auth },
    )
  ).json();
  expect(older).toMatchObject({ messages: [{ content: "one" }], hasMore: false });
  await expectError(
    await request.get(`/api/agent/v1/conversations/${conversationId}/messages?limit=101`, {
      headers: auth,
    }),
    400,
    "validation_error",
  );
  await expectError(
    await request.get(`/api/agent/v1/conversations/${conversationId}/messages?before=msg_nope`, {
      headers: auth,
    }),
    404,
    "not_found",
  );
});

test("per-type validation names the fields", async ({ request }) => {
  const { auth, person } = await newContact();
  const cases: [Record<string, unknown>, string][] = [
    [{ type: "text" }, "content"],
    [{ type: "text", content: "" }, "content"],
    [{ type: "text", content: "x".repeat(10_001) }, "content"],
    [{ type: "text", content: "x", imageData: "https://example.com/a.png" }, "imageData"],
    [{ type: "image", content: "pic" }, "imageData"],
    [{ type: "voice", content: "v", audioData: dataUrl("audio/wav", wavBytes()) }, "audioDuration"],
    [{ type: "location", content: "here", latitude: "1" }, "longitude"],
    [{ type: "contact", content: "c", sharedContactId: "u1" }, "sharedContactNum"],
    [
      {
        type: "document",
        content: "d",
        documentData: dataUrl("application/pdf", Buffer.from("%PDF")),
      },
      "documentName",
    ],
    [
      {
        type: "video",
        content: "v",
        videoData: "https://example.com/v.mp4",
        thumbnailData: "x".repeat(501),
      },
      "thumbnailData",
    ],
    [
      { type: "image", content: "i", imageData: "https://example.com/a.png", mediaWidth: 0 },
      "mediaWidth",
    ],
    [{ type: "fax", content: "x" }, "type"],
    [{ type: "text", content: "x", conversationId: "cnv_x" }, "to"],
  ];
  for (const [data, path] of cases) {
    const error = await expectError(
      await request.post("/api/agent/v1/messages", {
        headers: auth,
        data: { to: person.num, ...data },
      }),
      400,
      "validation_error",
    );
    expect(
      error.issues?.map((issue) => issue.path),
      JSON.stringify(data).slice(0, 80),
    ).toContain(path);
  }
});

test("media: images by data URL or https, voice checked by content, audio served with Range", async ({
  request,
}) => {
  const { auth, person, conversationId } = await newContact();
  const image = await request.post("/api/agent/v1/messages", {
    headers: auth,
    data: {
      to: person.num,
      type: "image",
      content: "a pixel",
      imageData: dataUrl("image/png", PNG_1X1),
      mediaWidth: 1,
      mediaHeight: 1,
    },
  });
  expect((await image.json()).message.image).toEqual({
    data: expect.stringMatching(/^\/objects\/obj_/),
    width: 1,
    height: 1,
  });

  await expectError(
    await request.post("/api/agent/v1/messages", {
      headers: auth,
      data: {
        to: person.num,
        type: "voice",
        content: "v",
        audioDuration: "1",
        audioData: dataUrl("audio/wav", Buffer.from("not audio at all")),
      },
    }),
    400,
    "invalid_audio",
  );
  for (const audioData of [
    "https://example.com/a.mp3",
    "/objects/obj_aaaaaaaaaaaaaaaaaaaa",
    "hello",
  ])
    await expectError(
      await request.post("/api/agent/v1/messages", {
        headers: auth,
        data: { to: person.num, type: "voice", content: "v", audioDuration: "1", audioData },
      }),
      400,
      "invalid_audio",
    );
  await expectError(
    await request.post("/api/agent/v1/messages", {
      headers: auth,
      data: { to: person.num, type: "voice", tts: { text: "hello" } },
    }),
    503,
    "tts_unavailable",
  );

  const wav = wavBytes();
  const voice = await (
    await request.post("/api/agent/v1/messages", {
      headers: auth,
      data: {
        conversationId,
        type: "voice",
        content: "listen",
        audioDuration: "0.1",
        audioData: dataUrl("audio/x-whatever", wav),
        transcript: "silence",
      },
    })
  ).json();
  expect(voice.message).toMatchObject({
    audio: { data: expect.stringMatching(/^\/objects\//), duration: "0.1" },
    transcript: "silence",
  });
  const whole = await request.get(`/api/agent/v1/messages/${voice.message.id}/audio`, {
    headers: auth,
  });
  expect(whole.status()).toBe(200);
  expect(whole.headers()["content-type"]).toBe("audio/wav");
  expect(Buffer.from(await whole.body()).equals(wav)).toBe(true);
  const part = await request.get(`/api/agent/v1/messages/${voice.message.id}/audio`, {
    headers: { ...auth, Range: "bytes=4-11" },
  });
  expect(part.status()).toBe(206);
  expect(part.headers()["content-range"]).toBe(`bytes 4-11/${wav.length}`);
  expect(Buffer.from(await part.body()).equals(wav.subarray(4, 12))).toBe(true);
  expect(
    (
      await request.get(`/api/agent/v1/messages/${voice.message.id}/audio`, {
        headers: { ...auth, Range: "bytes=99999-" },
      })
    ).status(),
  ).toBe(416);

  // Reusing a stored object by its path works for members of the conversation.
  const reuse = await request.post("/api/agent/v1/messages", {
    headers: auth,
    data: {
      conversationId,
      type: "voice",
      content: "again",
      audioDuration: "0.1",
      audioData: voice.message.audio.data,
    },
  });
  expect(reuse.status()).toBe(201);
  await expectError(
    await request.get("/api/agent/v1/messages/msg_unknown/audio", { headers: auth }),
    404,
    "message_not_found",
  );
  const imageId = (await image.json()).message.id;
  await expectError(
    await request.get(`/api/agent/v1/messages/${imageId}/audio`, { headers: auth }),
    404,
    "no_audio",
  );
});

test("a person's messages reach the agent as events, masked without messages:read", async ({
  request,
}) => {
  const open = await newContact();
  const masked = await newContact({ grant: ["messages:write"] });
  for (const setup of [open, masked]) {
    const cursor = (
      await (await request.get("/api/agent/v1/updates/cursor", { headers: setup.auth })).json()
    ).seq;
    const polling = request.get(`/api/agent/v1/updates?afterSeq=${cursor}&wait=10`, {
      headers: setup.auth,
    });
    await new Promise((r) => setTimeout(r, 200));
    const { message } = await sendPersonMessage(deps(), setup.person.id, setup.agent.id, {
      type: "voice",
      content: "voice note",
      audioData: `data:audio/wav;base64,${wavBytes().toString("base64")}`,
      audioDuration: "0.1",
    });
    await setMessageTranscript(deps(), message.id, "the words");
    const first = await (await polling).json();
    expect(first.events[0].type).toBe("message.received");
    const all = await (
      await request.get(`/api/agent/v1/updates?afterSeq=${cursor}`, { headers: setup.auth })
    ).json();
    const [received, transcript] = all.events;
    expect([received.type, transcript.type]).toEqual(["message.received", "message.transcript"]);
    expect(received.payload.from.id).toBe(setup.person.id);
    if (setup === open) {
      expect(received.payload.message).toMatchObject({
        id: message.id,
        type: "voice",
        audio: { duration: "0.1" },
      });
      expect(received.payload.message.transcript).toBeUndefined();
      expect(received.payload.accessDenied).toBeUndefined();
      expect(transcript.payload).toMatchObject({ messageId: message.id, transcript: "the words" });
      expect(
        (
          await request.get(`/api/agent/v1/messages/${message.id}/audio`, { headers: setup.auth })
        ).status(),
      ).toBe(200);
    } else {
      expect(received.payload).toMatchObject({
        message: null,
        accessDenied: { scope: "messages:read", message: expect.any(String) },
      });
      expect(transcript.payload).toMatchObject({
        transcript: null,
        accessDenied: { scope: "messages:read" },
      });
      await expectError(
        await request.get(`/api/agent/v1/messages/${message.id}/audio`, { headers: setup.auth }),
        403,
        "scope_not_granted",
      );
      const history = await request.get(
        `/api/agent/v1/conversations/${setup.conversationId}/messages`,
        { headers: setup.auth },
      );
      expect((await expectError(history, 403, "scope_not_granted")).scope).toBe("messages:read");
    }
  }
});

test("read receipts, typing and reactions", async ({ request }) => {
  const { auth, person, agent, conversationId } = await newContact();
  const { message } = await sendPersonMessage(deps(), person.id, agent.id, {
    type: "text",
    content: "hi there",
  });
  expect(
    await (
      await request.post(`/api/agent/v1/conversations/${conversationId}/read`, {
        headers: auth,
        data: { messageId: message.id },
      })
    ).json(),
  ).toEqual({ ok: true });
  await expectError(
    await request.post(`/api/agent/v1/conversations/${conversationId}/read`, {
      headers: auth,
      data: { messageId: "msg_nope" },
    }),
    404,
    "not_found",
  );
  await expectError(
    await request.post(`/api/agent/v1/conversations/${conversationId}/read`, {
      headers: auth,
      data: {},
    }),
    400,
    "validation_error",
  );
  expect(
    (
      await request.post(`/api/agent/v1/conversations/${conversationId}/typing`, { headers: auth })
    ).status(),
  ).toBe(200);
  expect(
    (
      await request.post(`/api/agent/v1/conversations/${conversationId}/typing`, {
        headers: auth,
        data: { typing: false },
      })
    ).status(),
  ).toBe(200);

  const reaction = await request.post(`/api/agent/v1/messages/${message.id}/reactions`, {
    headers: auth,
    data: { emoji: "👍" },
  });
  expect(reaction.status()).toBe(201);
  expect(await reaction.json()).toEqual({
    reaction: { messageId: message.id, emoji: "👍", createdAt: expect.any(String) },
  });
  await expectError(
    await request.post(`/api/agent/v1/messages/${message.id}/reactions`, {
      headers: auth,
      data: { emoji: "x".repeat(11) },
    }),
    400,
    "validation_error",
  );
  expect(
    await (
      await request.delete(
        `/api/agent/v1/messages/${message.id}/reactions/${encodeURIComponent("👍")}`,
        { headers: auth },
      )
    ).json(),
  ).toEqual({ ok: true });
  await expectError(
    await request.post("/api/agent/v1/messages/msg_nope/reactions", {
      headers: auth,
      data: { emoji: "👍" },
    }),
    404,
    "not_found",
  );

  const stranger = await newAgent();
  await expectError(
    await request.post(`/api/agent/v1/conversations/${conversationId}/typing`, {
      headers: stranger.auth,
    }),
    403,
    "forbidden",
  );
  await expectError(
    await request.get(`/api/agent/v1/conversations/${conversationId}/messages`, {
      headers: stranger.auth,
    }),
    403,
    "forbidden",
  );
  await expectError(
    await request.get("/api/agent/v1/conversations/cnv_nope/messages", { headers: auth }),
    404,
    "not_found",
  );
});

test("refusals answer their codes", async ({ request }) => {
  const { auth } = await newAgent();
  const stranger = await newContact();
  await expectError(
    await request.post("/api/agent/v1/messages", {
      headers: auth,
      data: { to: stranger.person.num, type: "text", content: "hi" },
    }),
    403,
    "not_a_contact",
  );
  await expectError(
    await request.post("/api/agent/v1/messages", {
      headers: auth,
      data: { to: "999-999-999", type: "text", content: "hi" },
    }),
    404,
    "not_found",
  );
  const readOnly = await newContact({ grant: ["messages:read"] });
  const error = await expectError(
    await request.post("/api/agent/v1/messages", {
      headers: readOnly.auth,
      data: { to: readOnly.person.num, type: "text", content: "hi" },
    }),
    403,
    "scope_not_granted",
  );
  expect(error.scope).toBe("messages:write");
});
