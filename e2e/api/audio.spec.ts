import { sendPersonMessage, setGrant } from "@switchboard/core";
import { objectIdFromPath, postgresObjectStore } from "@switchboard/core/testing";
import {
  agentApi,
  dataUrl,
  deps,
  mp3Bytes,
  newContact,
  oggBytes,
  wavBytes,
} from "../support/fixtures";
import { expectError } from "../support/http";
import { expect, test } from "../support/test";

test("serves a voice note whole or by Range (206, Content-Range), 416 past the end", async ({
  request,
}) => {
  const { auth, conversationId } = await newContact();
  const api = agentApi(request, auth);
  const wav = wavBytes(1000);
  const sent = await api.send({
    conversationId,
    type: "voice",
    content: "note",
    audioDuration: "0.1",
    audioData: dataUrl("audio/wav", wav),
  });
  const id = (await sent.json()).message.id;
  const path = `/messages/${id}/audio`;

  const whole = await api.get(path);
  expect(whole.status()).toBe(200);
  expect(whole.headers()).toMatchObject({ "content-type": "audio/wav", "accept-ranges": "bytes" });
  expect(Buffer.from(await whole.body()).equals(wav)).toBe(true);

  const ranges: [string, number, number][] = [
    ["bytes=0-0", 0, 0],
    ["bytes=4-11", 4, 11],
    [`bytes=${wav.length - 10}-`, wav.length - 10, wav.length - 1],
    ["bytes=-16", wav.length - 16, wav.length - 1],
    [`bytes=100-${wav.length + 500}`, 100, wav.length - 1],
  ];
  for (const [range, start, end] of ranges) {
    const part = await api.get(path, { Range: range });
    expect(part.status(), range).toBe(206);
    expect(part.headers()["content-range"]).toBe(`bytes ${start}-${end}/${wav.length}`);
    expect(part.headers()["content-type"]).toBe("audio/wav");
    expect(Buffer.from(await part.body()).equals(wav.subarray(start, end + 1)), range).toBe(true);
  }
  const past = await api.get(path, { Range: `bytes=${wav.length}-` });
  expect(past.status()).toBe(416);
  expect(past.headers()["content-range"]).toBe(`bytes */${wav.length}`);
  await expectError(past, 416, "range_not_satisfiable");
  // A Range the service does not serve (several ranges) is ignored: the whole body.
  expect((await api.get(path, { Range: "bytes=0-1,4-5" })).status()).toBe(200);
});

test("answers the stored type: ogg and mp3 by content", async ({ request }) => {
  const { auth, conversationId } = await newContact();
  const api = agentApi(request, auth);
  for (const [bytes, mime] of [
    [oggBytes(), "audio/ogg"],
    [mp3Bytes(), "audio/mpeg"],
  ] as const) {
    const id = (
      await (
        await api.send({
          conversationId,
          type: "voice",
          content: "n",
          audioDuration: "1",
          audioData: dataUrl("audio/whatever", bytes),
        })
      ).json()
    ).message.id;
    const response = await api.get(`/messages/${id}/audio`);
    expect([response.status(), response.headers()["content-type"]]).toEqual([200, mime]);
  }
});

test("the person's notes need their messages:read; the agent's own need no grant", async ({
  request,
}) => {
  const { auth, person, agent, conversationId } = await newContact({ grant: ["messages:write"] });
  const api = agentApi(request, auth);
  const own = (
    await (
      await api.send({
        conversationId,
        type: "voice",
        content: "mine",
        audioDuration: "1",
        audioData: dataUrl("audio/ogg", oggBytes()),
      })
    ).json()
  ).message;
  expect((await api.get(`/messages/${own.id}/audio`)).status()).toBe(200);
  const { message: theirs } = await sendPersonMessage(deps(), person.id, agent.id, {
    type: "voice",
    audioData: dataUrl("audio/wav", wavBytes()),
    audioDuration: "0.1",
  });
  const denied = await expectError(
    await api.get(`/messages/${theirs.id}/audio`),
    403,
    "scope_not_granted",
  );
  expect(denied.scope).toBe("messages:read");
  await setGrant(deps(), person.id, agent.id, ["messages:read", "messages:write"]);
  const allowed = await api.get(`/messages/${theirs.id}/audio`);
  expect([allowed.status(), Buffer.from(await allowed.body()).equals(wavBytes())]).toEqual([
    200,
    true,
  ]);
});

test("404 message_not_found and no_audio (also when the stored audio is gone)", async ({
  request,
}) => {
  const { auth, conversationId } = await newContact();
  const api = agentApi(request, auth);
  await expectError(await api.get("/messages/msg_unknown/audio"), 404, "message_not_found");
  const text = (await (await api.send({ conversationId, type: "text", content: "t" })).json())
    .message;
  await expectError(await api.get(`/messages/${text.id}/audio`), 404, "no_audio");
  const note = (
    await (
      await api.send({
        conversationId,
        type: "voice",
        content: "n",
        audioDuration: "1",
        audioData: dataUrl("audio/ogg", oggBytes()),
      })
    ).json()
  ).message;
  const other = await newContact();
  await expectError(
    await agentApi(request, other.auth).get(`/messages/${note.id}/audio`),
    404,
    "message_not_found",
  );
  await postgresObjectStore.delete(deps().db, objectIdFromPath(note.audio.data) ?? "", new Date());
  await expectError(await api.get(`/messages/${note.id}/audio`), 404, "no_audio");
  await expectError(await api.post(`/messages/${note.id}/audio`, {}), 405, "method_not_allowed");
});
