import { pauseAgent, resumeAgent, sendPersonMessage } from "@switchboard/core";
import {
  agentApi,
  dataUrl,
  deps,
  newAgent,
  newContact,
  oggBytes,
  PNG_1X1,
  wavBytes,
  webmBytes,
} from "../support/fixtures";
import { expectError } from "../support/http";
import { startMediaServer } from "../support/media-server";
import { expect, test } from "../support/test";

test.describe("POST /agent/v1/messages", () => {
  test("sends by number or by conversation: 201 with the message and its conversation", async ({
    request,
  }) => {
    const { auth, person, agent, conversationId } = await newContact();
    const api = agentApi(request, auth);
    const byNum = await api.send({ to: person.num, type: "text", content: "one" });
    expect(byNum.status(), await byNum.text()).toBe(201);
    expect(await byNum.json()).toEqual({
      conversationId,
      message: {
        id: expect.stringMatching(/^msg_/),
        conversationId,
        senderId: agent.id,
        senderNum: agent.num,
        type: "text",
        content: "one",
        replyToId: null,
        agentActionId: null,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    });
    const first = (await byNum.json()).message;
    const byConversation = await api.send({
      conversationId,
      type: "text",
      content: "two",
      replyToId: first.id,
    });
    expect(byConversation.status()).toBe(201);
    expect((await byConversation.json()).message).toMatchObject({
      content: "two",
      replyToId: first.id,
    });
  });

  test("all eight types, each with its media group only", async ({ request }) => {
    const { auth, person } = await newContact();
    const api = agentApi(request, auth);
    // Image URLs are fetched once, at send time, into the service's own store.
    const png = { type: "image/png", body: PNG_1X1 };
    const media = await startMediaServer({ "/s.png": png, "/t.png": png });
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ type: "text", content: "plain" }, {}],
      [
        {
          type: "voice",
          content: "listen",
          audioData: dataUrl("audio/ogg", oggBytes()),
          audioDuration: "2.5",
          transcript: "hello",
        },
        {
          audio: { data: expect.stringMatching(/^\/objects\/obj_/), duration: "2.5" },
          transcript: "hello",
        },
      ],
      [
        {
          type: "image",
          content: "pixel",
          imageData: dataUrl("image/png", PNG_1X1),
          mediaWidth: 1,
          mediaHeight: 1,
        },
        { image: { data: expect.stringMatching(/^\/objects\//), width: 1, height: 1 } },
      ],
      [
        { type: "sticker", content: "s", imageData: media.url("/s.png") },
        { image: { data: expect.stringMatching(/^\/objects\//), width: null, height: null } },
      ],
      [
        {
          type: "video",
          content: "clip",
          videoData: dataUrl("video/webm", webmBytes()),
          thumbnailData: media.url("/t.png"),
          mediaWidth: 640,
        },
        {
          video: {
            data: expect.stringMatching(/^\/objects\//),
            thumbnail: expect.stringMatching(/^\/objects\//),
            width: 640,
            height: null,
          },
        },
      ],
      [
        { type: "location", content: "here", latitude: "48.8566", longitude: "2.3522" },
        { location: { latitude: "48.8566", longitude: "2.3522" } },
      ],
      [
        {
          type: "contact",
          content: "Sam",
          sharedContactId: "usr_sam",
          sharedContactNum: "222-333-444",
          sharedContactType: "person",
        },
        {
          sharedContact: {
            id: "usr_sam",
            num: "222-333-444",
            name: null,
            avatar: null,
            type: "person",
          },
        },
      ],
      [
        {
          type: "document",
          content: "the file",
          documentData: dataUrl("application/pdf", Buffer.from("%PDF-1.4")),
          documentName: "file.pdf",
          documentSize: "8",
        },
        {
          document: {
            data: expect.stringMatching(/^\/objects\//),
            name: "file.pdf",
            size: "8",
            mimeType: "application/pdf",
          },
        },
      ],
    ];
    const groups = ["audio", "image", "video", "location", "sharedContact", "document"];
    for (const [body, media] of cases) {
      const response = await api.send({ to: person.num, ...body });
      expect(response.status(), await response.text()).toBe(201);
      const { message } = await response.json();
      expect(message).toMatchObject({ type: body.type, content: body.content, ...media });
      expect(groups.filter((g) => g in message)).toEqual(
        Object.keys(media).filter((k) => k !== "transcript"),
      );
      if (body.type !== "voice") expect(message).not.toHaveProperty("transcript");
    }
    expect(media.requests.map((r) => r.path).sort()).toEqual(["/s.png", "/t.png"]);
    await media.close();
  });

  test("validation: every per-type rule and field bound names its field", async ({ request }) => {
    const { auth, person } = await newContact();
    const api = agentApi(request, auth);
    const wav = dataUrl("audio/wav", wavBytes());
    const cases: [Record<string, unknown>, string][] = [
      [{ type: "text" }, "content"],
      [{ type: "text", content: "" }, "content"],
      [{ type: "text", content: "x".repeat(10_001) }, "content"],
      [{ type: "text", content: "x", imageData: "https://example.com/a.png" }, "imageData"],
      [{ type: "text", content: "x", latitude: "1" }, "latitude"],
      [{ type: "voice", content: "v" }, "audioData"],
      [{ type: "voice", content: "v", audioData: wav }, "audioDuration"],
      [{ type: "voice", audioData: wav, audioDuration: "1" }, "content"],
      [
        { type: "voice", content: "v", audioData: wav, audioDuration: "12345678901" },
        "audioDuration",
      ],
      [{ type: "voice", tts: { text: "hi" }, audioData: wav, audioDuration: "1" }, "tts"],
      [{ type: "image", content: "pic" }, "imageData"],
      [{ type: "sticker", content: "s" }, "imageData"],
      [{ type: "video", content: "v" }, "videoData"],
      [{ type: "location", content: "here", latitude: "1" }, "longitude"],
      [{ type: "location", content: "here", longitude: "1" }, "latitude"],
      [{ type: "contact", content: "c", sharedContactId: "u1" }, "sharedContactNum"],
      [{ type: "contact", content: "c", sharedContactNum: "222-333-444" }, "sharedContactId"],
      [{ type: "document", content: "d", documentName: "a.pdf" }, "documentData"],
      [{ type: "document", content: "d", documentData: "/objects/obj_x" }, "documentName"],
      [
        {
          type: "document",
          content: "d",
          documentData: "/objects/obj_x",
          documentName: "x".repeat(256),
        },
        "documentName",
      ],
      [
        {
          type: "document",
          content: "d",
          documentData: "/objects/obj_x",
          documentName: "a",
          documentSize: "x".repeat(21),
        },
        "documentSize",
      ],
      [
        {
          type: "document",
          content: "d",
          documentData: "/objects/obj_x",
          documentName: "a",
          documentMimeType: "x".repeat(101),
        },
        "documentMimeType",
      ],
      [
        {
          type: "video",
          content: "v",
          videoData: "https://e.com/v.mp4",
          thumbnailData: "x".repeat(501),
        },
        "thumbnailData",
      ],
      [
        { type: "image", content: "i", imageData: "https://e.com/a.png", mediaWidth: 0 },
        "mediaWidth",
      ],
      [
        { type: "image", content: "i", imageData: "https://e.com/a.png", mediaHeight: 2.5 },
        "mediaHeight",
      ],
      [{ type: "image", content: "i", imageData: dataUrl("image/png", wavBytes()) }, "imageData"],
      [{ type: "image", content: "i", imageData: "ftp://e.com/a.png" }, "imageData"],
      [{ type: "text", content: "x", replyToId: "msg_not_here" }, "replyToId"],
      [{ type: "fax", content: "x" }, "type"],
      [{ type: "text", content: "x", conversationId: "cnv_x" }, "to"],
      [{ type: "text", content: "x", to: "12345" }, "to"],
    ];
    for (const [data, path] of cases) {
      const error = await expectError(
        await api.send({ to: person.num, ...data }),
        400,
        "validation_error",
      );
      expect(
        error.issues?.map((i) => i.path),
        JSON.stringify(data).slice(0, 100),
      ).toContain(path);
    }
    const neither = await expectError(
      await api.send({ type: "text", content: "x" }),
      400,
      "validation_error",
    );
    expect(neither.issues?.map((i) => i.path)).toEqual(["to", "conversationId"]);
    const unknown = await expectError(
      await api.send({ to: person.num, type: "text", content: "x", color: "red" }),
      400,
      "validation_error",
    );
    expect(unknown.issues?.[0]?.message).toMatch(/color/);
    expect(
      (await api.send({ to: person.num, type: "text", content: "x".repeat(10_000) })).status(),
    ).toBe(201);
  });

  test("voice audio: data URLs checked by content, /objects paths of the sender's conversations, else invalid_audio", async ({
    request,
  }) => {
    const { auth, person, agent, conversationId } = await newContact();
    const api = agentApi(request, auth);
    const voice = (audioData: string) =>
      api.send({ conversationId, type: "voice", content: "v", audioDuration: "1", audioData });
    for (const audioData of [
      dataUrl("audio/wav", Buffer.from("this is not audio")),
      dataUrl("audio/ogg", PNG_1X1),
      "data:audio/wav,plain-text-not-base64",
      "https://example.com/a.mp3",
      "/objects/obj_aaaaaaaaaaaaaaaaaaaa",
      "/objects/anything",
      "hello",
    ])
      await expectError(await voice(audioData), 400, "invalid_audio");

    // Declared type does not matter, content does.
    const stored = await voice(dataUrl("application/octet-stream", oggBytes()));
    expect(stored.status()).toBe(201);
    const path = (await stored.json()).message.audio.data;
    expect((await voice(path)).status()).toBe(201);
    // The person's own note is usable in their conversation; another agent can use neither.
    const { message: theirs } = await sendPersonMessage(deps(), person.id, agent.id, {
      type: "voice",
      audioData: dataUrl("audio/ogg", oggBytes()),
    });
    expect((await voice(theirs.audio?.data ?? "")).status()).toBe(201);
    const other = await newContact();
    const otherApi = agentApi(request, other.auth);
    for (const audioData of [path, theirs.audio?.data])
      await expectError(
        await otherApi.send({
          to: other.person.num,
          type: "voice",
          content: "v",
          audioDuration: "1",
          audioData,
        }),
        400,
        "invalid_audio",
      );
  });

  test("voice audio above 10 MB is refused", async ({ request }) => {
    test.setTimeout(60_000);
    const { auth, person } = await newContact();
    const big = wavBytes((10 * 1024 * 1024 - 44) / 2 + 1);
    expect(big.length).toBeGreaterThan(10 * 1024 * 1024);
    const error = await expectError(
      await agentApi(request, auth).send({
        to: person.num,
        type: "voice",
        content: "long",
        audioDuration: "655",
        audioData: dataUrl("audio/wav", big),
      }),
      400,
      "invalid_audio",
    );
    expect(error.message).toMatch(/10 MB/);
  });

  test("tts on a default install: espeak-ng speaks, the audio comes back as Opus in Ogg", async ({
    request,
  }) => {
    const { auth, person } = await newContact({ grant: ["messages:read", "messages:write"] });
    const api = agentApi(request, auth);
    const response = await api.send({
      to: person.num,
      type: "voice",
      tts: { text: "Your table for two is booked for eight o'clock." },
    });
    expect(response.status()).toBe(201);
    const { message } = await response.json();
    expect(message).toMatchObject({
      type: "voice",
      content: "Your table for two is booked for eight o'clock.",
      transcript: "Your table for two is booked for eight o'clock.",
      audio: { data: expect.stringMatching(/^\/objects\//) },
    });
    // espeak-ng says this in about three seconds.
    expect(Number(message.audio.duration)).toBeGreaterThan(1);
    expect(Number(message.audio.duration)).toBeLessThan(10);
    const audio = await api.get(`/messages/${message.id}/audio`);
    expect(audio.status()).toBe(200);
    expect(audio.headers()["content-type"]).toBe("audio/ogg");
    const bytes = await audio.body();
    expect(bytes.subarray(0, 4).toString("latin1")).toBe("OggS");
    expect(bytes.subarray(28, 36).toString("latin1")).toBe("OpusHead");
    expect(bytes.length).toBeGreaterThan(1000);
  });

  test("image and video URLs the service cannot use: 422 and 415, naming the field", async ({
    request,
  }) => {
    const { auth, person } = await newContact();
    const api = agentApi(request, auth);
    const media = await startMediaServer({
      "/page.png": { type: "image/png", body: Buffer.from("<html>not an image</html>") },
      "/a.png": { type: "image/png", body: PNG_1X1 },
    });
    const unreachable = await expectError(
      await api.send({
        to: person.num,
        type: "image",
        content: "x",
        imageData: media.url("/gone.png"),
      }),
      422,
      "media_fetch_failed",
    );
    expect(unreachable.issues).toEqual([
      { path: "imageData", message: expect.stringContaining("answered 404") },
    ]);
    const refused: [Record<string, string>, number, string][] = [
      [{ type: "image", imageData: media.url("/page.png") }, 415, "unsupported_media"],
      [{ type: "video", videoData: media.url("/a.png") }, 415, "unsupported_media"],
      [{ type: "image", imageData: "https://10.1.2.3/a.png" }, 422, "media_fetch_failed"],
    ];
    for (const [body, status, code] of refused)
      await expectError(await api.send({ to: person.num, content: "x", ...body }), status, code);
    await media.close();
  });

  test("404 for unknown numbers and conversations, 403 forbidden for another's conversation, 403 agent_paused", async ({
    request,
  }) => {
    const { auth, agent } = await newContact();
    const api = agentApi(request, auth);
    await expectError(
      await api.send({ to: "999-999-999", type: "text", content: "x" }),
      404,
      "not_found",
    );
    await expectError(
      await api.send({ conversationId: "cnv_doesnotexist", type: "text", content: "x" }),
      404,
      "not_found",
    );
    const other = await newContact();
    await expectError(
      await api.send({ conversationId: other.conversationId, type: "text", content: "x" }),
      403,
      "forbidden",
    );
    const lonely = await newAgent();
    await expectError(
      await agentApi(request, lonely.auth).send({
        to: other.person.num,
        type: "text",
        content: "x",
      }),
      403,
      "not_a_contact",
    );
    await pauseAgent(deps(), agent.id);
    try {
      await expectError(
        await api.send({ to: other.person.num, type: "text", content: "x" }),
        403,
        "agent_paused",
      );
    } finally {
      await resumeAgent(deps(), agent.id);
    }
  });
});
