import { describe, expect, it } from "vitest";
import { AgentHistoryQuery, AgentReadRequest, AgentTypingRequest } from "./conversations";
import {
  AgentMessage,
  AgentReactionRequest,
  AgentSendMessageRequest,
  PersonMessageInput,
} from "./messages";

const to = "123-456-789";
const paths = (
  schema: { safeParse(v: unknown): { error?: { issues: { path: PropertyKey[] }[] } } },
  value: unknown,
) => [
  ...new Set((schema.safeParse(value).error?.issues ?? []).map((issue) => issue.path.join("."))),
];
const sendPaths = (body: Record<string, unknown>) =>
  paths(AgentSendMessageRequest, { to, ...body });

describe("AgentSendMessageRequest", () => {
  it("accepts every type with its required fields", () => {
    const valid: Record<string, unknown>[] = [
      { type: "text", content: "hi" },
      { type: "voice", content: "v", audioData: "/objects/obj_x", audioDuration: "3.5" },
      { type: "voice", tts: { text: "spoken" } },
      { type: "voice", content: "caption", tts: { text: "spoken", voice: "en-us" } },
      {
        type: "image",
        content: "i",
        imageData: "https://x.example/a.png",
        mediaWidth: 640,
        mediaHeight: 480,
      },
      { type: "sticker", content: "s", imageData: "data:image/png;base64,AAAA" },
      {
        type: "video",
        content: "v",
        videoData: "https://x.example/v.mp4",
        thumbnailData: "https://x.example/t.jpg",
      },
      { type: "location", content: "here", latitude: "-33.8688", longitude: "151.2093" },
      { type: "contact", content: "c", sharedContactId: "usr_1", sharedContactNum: "111-222-333" },
      { type: "document", content: "d", documentData: "/objects/obj_y", documentName: "a.pdf" },
    ];
    for (const body of valid) expect(sendPaths(body), JSON.stringify(body)).toEqual([]);
    expect(
      paths(AgentSendMessageRequest, { conversationId: "cnv_1", type: "text", content: "x" }),
    ).toEqual([]);
  });

  it("needs exactly one of to or conversationId", () => {
    expect(paths(AgentSendMessageRequest, { type: "text", content: "x" })).toEqual([
      "to",
      "conversationId",
    ]);
    expect(sendPaths({ conversationId: "cnv_1", type: "text", content: "x" })).toEqual([
      "to",
      "conversationId",
    ]);
    expect(sendPaths({ to: "12-34", type: "text", content: "x" })).toEqual(["to"]);
  });

  it("names the missing fields of each type", () => {
    expect(sendPaths({ type: "text" })).toEqual(["content"]);
    expect(sendPaths({ type: "voice", content: "v" })).toEqual(["audioData", "audioDuration"]);
    expect(sendPaths({ type: "voice", content: "v", audioData: "/objects/obj_x" })).toEqual([
      "audioDuration",
    ]);
    expect(sendPaths({ type: "voice", audioData: "/objects/obj_x", audioDuration: "1" })).toEqual([
      "content",
    ]);
    expect(sendPaths({ type: "image", content: "i" })).toEqual(["imageData"]);
    expect(sendPaths({ type: "sticker", content: "s" })).toEqual(["imageData"]);
    expect(sendPaths({ type: "video", content: "v" })).toEqual(["videoData"]);
    expect(sendPaths({ type: "location", content: "l", latitude: "1" })).toEqual(["longitude"]);
    expect(sendPaths({ type: "contact", content: "c", sharedContactNum: "111-222-333" })).toEqual([
      "sharedContactId",
    ]);
    expect(sendPaths({ type: "document", content: "d", documentData: "/objects/obj_y" })).toEqual([
      "documentName",
    ]);
  });

  it("refuses media fields of other types, tts with audio, and unknown fields", () => {
    expect(sendPaths({ type: "text", content: "x", imageData: "https://x.example/a.png" })).toEqual(
      ["imageData"],
    );
    expect(sendPaths({ type: "text", content: "x", mediaWidth: 3 })).toEqual(["mediaWidth"]);
    expect(
      sendPaths({ type: "image", content: "x", imageData: "https://x.example/a", transcript: "t" }),
    ).toEqual(["transcript"]);
    expect(
      sendPaths({
        type: "voice",
        content: "x",
        tts: { text: "t" },
        audioData: "/objects/obj_x",
        audioDuration: "1",
      }),
    ).toEqual(["tts"]);
    expect(sendPaths({ type: "text", content: "x", colour: "red" })).toEqual([""]);
    expect(sendPaths({ type: "voice", tts: { text: "t", speed: 2 } })).toEqual(["tts"]);
    expect(sendPaths({ type: "fax", content: "x" })).toContain("type");
  });

  it("bounds every field", () => {
    const long = (n: number) => "x".repeat(n);
    const voice = { type: "voice", content: "v", audioData: "/objects/obj_x" };
    const cases: [Record<string, unknown>, string][] = [
      [{ type: "text", content: "" }, "content"],
      [{ type: "text", content: long(10_001) }, "content"],
      [{ type: "text", content: "x", replyToId: "" }, "replyToId"],
      [{ type: "text", content: "x", replyToId: long(101) }, "replyToId"],
      [{ ...voice, audioDuration: long(11) }, "audioDuration"],
      [{ ...voice, audioDuration: "soon" }, "audioDuration"],
      [{ ...voice, audioDuration: "1", transcript: long(10_001) }, "transcript"],
      [{ type: "voice", tts: { text: "" } }, "tts.text"],
      [{ type: "voice", tts: { text: "t", voice: "--help" } }, "tts.voice"],
      [{ type: "image", content: "i", imageData: "" }, "imageData"],
      [
        { type: "image", content: "i", imageData: "https://x.example/a", mediaWidth: 0 },
        "mediaWidth",
      ],
      [
        { type: "image", content: "i", imageData: "https://x.example/a", mediaHeight: 1.5 },
        "mediaHeight",
      ],
      [
        { type: "video", content: "v", videoData: "https://x.example/v", thumbnailData: long(501) },
        "thumbnailData",
      ],
      [{ type: "location", content: "l", latitude: "91", longitude: "0" }, "latitude"],
      [{ type: "location", content: "l", latitude: "0", longitude: "east" }, "longitude"],
      [
        { type: "contact", content: "c", sharedContactId: "u", sharedContactNum: "1-2-3" },
        "sharedContactNum",
      ],
      [
        {
          type: "contact",
          content: "c",
          sharedContactId: "u",
          sharedContactNum: "111-222-333",
          sharedContactName: long(101),
        },
        "sharedContactName",
      ],
      [
        {
          type: "contact",
          content: "c",
          sharedContactId: "u",
          sharedContactNum: "111-222-333",
          sharedContactType: long(21),
        },
        "sharedContactType",
      ],
      [
        { type: "document", content: "d", documentData: "/objects/obj_y", documentName: long(256) },
        "documentName",
      ],
      [
        {
          type: "document",
          content: "d",
          documentData: "/objects/obj_y",
          documentName: "a",
          documentSize: long(21),
        },
        "documentSize",
      ],
      [
        {
          type: "document",
          content: "d",
          documentData: "/objects/obj_y",
          documentName: "a",
          documentMimeType: long(101),
        },
        "documentMimeType",
      ],
    ];
    for (const [body, path] of cases)
      expect(sendPaths(body), `${path}: ${JSON.stringify(body).slice(0, 90)}`).toEqual([path]);
    expect(sendPaths({ type: "text", content: long(10_000) })).toEqual([]);
  });
});

describe("PersonMessageInput", () => {
  it("lets people leave captions and durations out, and keeps tts and transcripts for the service", () => {
    expect(paths(PersonMessageInput, { type: "image", imageData: "/objects/obj_x" })).toEqual([]);
    expect(paths(PersonMessageInput, { type: "voice", audioData: "/objects/obj_x" })).toEqual([]);
    expect(paths(PersonMessageInput, { type: "text" })).toEqual(["content"]);
    expect(paths(PersonMessageInput, { type: "voice", tts: { text: "t" } })).toEqual([
      "audioData",
      "tts",
    ]);
    expect(
      paths(PersonMessageInput, { type: "voice", audioData: "/objects/obj_x", transcript: "t" }),
    ).toEqual(["transcript"]);
  });
});

describe("the other messaging bodies", () => {
  it("history query: limit 1-100 (default 50), before", () => {
    expect(AgentHistoryQuery.parse({})).toEqual({ limit: 50 });
    expect(AgentHistoryQuery.parse({ limit: "100", before: "msg_1" })).toEqual({
      limit: 100,
      before: "msg_1",
    });
    for (const query of [
      { limit: "0" },
      { limit: "101" },
      { limit: "-1" },
      { limit: "1.5" },
      { limit: "" },
      { page: "2" },
    ])
      expect(AgentHistoryQuery.safeParse(query).success, JSON.stringify(query)).toBe(false);
  });

  it("read, typing and reaction bodies", () => {
    expect(AgentReadRequest.safeParse({}).success).toBe(false);
    expect(AgentReadRequest.safeParse({ messageId: "msg_1", extra: 1 }).success).toBe(false);
    expect(AgentTypingRequest.parse({})).toEqual({ typing: true });
    expect(AgentTypingRequest.parse({ typing: false })).toEqual({ typing: false });
    expect(AgentTypingRequest.safeParse({ typing: "yes" }).success).toBe(false);
    for (const emoji of ["👍", "👍🏽", "👨‍👩‍👧‍👦", "ok", "x".repeat(10)])
      expect(AgentReactionRequest.safeParse({ emoji }).success, emoji).toBe(true);
    for (const emoji of ["", "x".repeat(11), " 👍", "a\nb"])
      expect(AgentReactionRequest.safeParse({ emoji }).success, emoji).toBe(false);
  });
});

describe("AgentMessage", () => {
  const base = {
    id: "msg_1",
    conversationId: "cnv_1",
    senderId: "agt_1",
    content: "",
    replyToId: null,
    agentActionId: null,
    createdAt: "2026-01-01T00:00:00.000Z",
  };
  it("has its type's media group and no other", () => {
    expect(paths(AgentMessage, { ...base, type: "text" })).toEqual([]);
    expect(
      paths(AgentMessage, {
        ...base,
        type: "voice",
        audio: { data: "/objects/o", duration: null },
      }),
    ).toEqual([]);
    expect(paths(AgentMessage, { ...base, type: "voice" })).toEqual(["audio"]);
    expect(
      paths(AgentMessage, {
        ...base,
        type: "text",
        location: { latitude: "1", longitude: "2" },
        transcript: "t",
      }),
    ).toEqual(["location", "transcript"]);
  });
});
