import { MAX_MEDIA_BYTES } from "@switchboard/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CoreError } from "../errors";
import { createUser } from "../identity/users";
import { createTestDeps } from "../testing";
import { parseByteRange } from "./byte-range";
import { postgresObjectStore } from "./object-store";
import { decodeDataUrl, prepareMediaInput } from "./prepare-media";
import { sniffAudio, sniffImage, sniffVideo } from "./sniff-media";
import {
  aacBytes,
  dataUrl,
  ftypBytes,
  gifBytes,
  jpegBytes,
  mp3FrameBytes,
  mp3Id3Bytes,
  oggBytes,
  pngBytes,
  wavBytes,
  webmBytes,
  webpBytes,
} from "./test-media";

describe("recognising media by content", () => {
  it("knows each audio format by its magic numbers", () => {
    expect(sniffAudio(wavBytes())).toBe("audio/wav");
    expect(sniffAudio(oggBytes())).toBe("audio/ogg");
    expect(sniffAudio(webmBytes())).toBe("audio/webm");
    expect(sniffAudio(ftypBytes())).toBe("audio/mp4");
    expect(sniffAudio(mp3Id3Bytes())).toBe("audio/mpeg");
    expect(sniffAudio(mp3FrameBytes())).toBe("audio/mpeg");
    expect(sniffAudio(aacBytes())).toBe("audio/aac");
    for (const other of [
      pngBytes(),
      Buffer.from("hello world"),
      Buffer.from([0xff]),
      Buffer.alloc(0),
    ])
      expect(sniffAudio(other)).toBeNull();
  });

  it("knows images and videos", () => {
    expect([pngBytes(), jpegBytes(), gifBytes(), webpBytes()].map(sniffImage)).toEqual([
      "image/png",
      "image/jpeg",
      "image/gif",
      "image/webp",
    ]);
    expect(sniffImage(wavBytes())).toBeNull();
    expect(sniffVideo(ftypBytes("isom"))).toBe("video/mp4");
    expect(sniffVideo(ftypBytes("qt  "))).toBe("video/quicktime");
    expect(sniffVideo(webmBytes())).toBe("video/webm");
    expect(sniffVideo(pngBytes())).toBeNull();
  });
});

describe("reading a media field", () => {
  const codeOf = (run: () => unknown) => {
    try {
      run();
      return "ok";
    } catch (error) {
      return (error as CoreError).code;
    }
  };

  it("decodes base64 data URLs only", () => {
    expect(decodeDataUrl(dataUrl("audio/wav", wavBytes()))?.bytes.equals(wavBytes())).toBe(true);
    expect(decodeDataUrl("data:audio/ogg;codecs=opus;base64,T2dnUw==")).toMatchObject({
      declared: "audio/ogg",
    });
    expect(decodeDataUrl("data:text/plain,hello")).toBeNull();
    expect(decodeDataUrl("data:audio/wav;base64,***")).toBeNull();
    expect(decodeDataUrl("https://example.com/a.wav")).toBeNull();
  });

  it("takes audio by content whatever the declared type, and refuses anything else as invalid_audio", () => {
    const ok = prepareMediaInput(
      "audio",
      "audioData",
      dataUrl("application/octet-stream", oggBytes()),
    );
    expect(ok.source).toMatchObject({ type: "bytes", mimeType: "audio/ogg" });
    expect(
      prepareMediaInput("audio", "audioData", "/objects/obj_aaaaaaaaaaaaaaaaaaaa").source,
    ).toEqual({
      type: "object",
      id: "obj_aaaaaaaaaaaaaaaaaaaa",
    });
    for (const value of [
      dataUrl("audio/wav", Buffer.from("not audio at all")),
      dataUrl("audio/wav", pngBytes()),
      "https://example.com/a.mp3",
      "/objects/../../etc/passwd",
      "data:audio/wav;base64,",
      "hello",
    ])
      expect(
        codeOf(() => prepareMediaInput("audio", "audioData", value)),
        value,
      ).toBe("invalid_audio");
  });

  it("holds voice to 10 MB decoded", () => {
    const wav = wavBytes((MAX_MEDIA_BYTES - 44) / 2);
    expect(wav.length).toBe(MAX_MEDIA_BYTES);
    expect(codeOf(() => prepareMediaInput("audio", "audioData", dataUrl("audio/wav", wav)))).toBe(
      "ok",
    );
    const over = Buffer.concat([wav, Buffer.alloc(1)]);
    expect(codeOf(() => prepareMediaInput("audio", "audioData", dataUrl("audio/wav", over)))).toBe(
      "invalid_audio",
    );
  });

  it("takes images by content, https URLs as given, and names the field when refusing", () => {
    expect(prepareMediaInput("image", "imageData", "https://cdn.example.com/a.png").source).toEqual(
      {
        type: "url",
        url: "https://cdn.example.com/a.png",
      },
    );
    expect(
      prepareMediaInput("image", "imageData", dataUrl("image/png", gifBytes())).source,
    ).toMatchObject({
      mimeType: "image/gif",
    });
    try {
      prepareMediaInput("image", "imageData", dataUrl("image/png", wavBytes()));
      throw new Error("accepted audio as an image");
    } catch (error) {
      expect(error).toBeInstanceOf(CoreError);
      expect((error as CoreError).code).toBe("validation_error");
      expect((error as CoreError).details.issues?.[0]?.path).toBe("imageData");
    }
    expect(codeOf(() => prepareMediaInput("image", "imageData", "http://example.com/a.png"))).toBe(
      "validation_error",
    );
    expect(
      codeOf(() => prepareMediaInput("image", "imageData", "https://u:p@example.com/a.png")),
    ).toBe("validation_error");
    const doc = prepareMediaInput(
      "document",
      "documentData",
      dataUrl("application/pdf", Buffer.from("%PDF-1.4")),
    );
    expect(doc.source).toMatchObject({ type: "bytes", mimeType: "application/pdf" });
  });
});

describe("byte ranges", () => {
  it("answers one range, the whole body, or unsatisfiable", () => {
    expect(parseByteRange(null, 100)).toBe("whole");
    expect(parseByteRange("bytes=0-9", 100)).toEqual({ start: 0, end: 9 });
    expect(parseByteRange("bytes=90-", 100)).toEqual({ start: 90, end: 99 });
    expect(parseByteRange("bytes=-10", 100)).toEqual({ start: 90, end: 99 });
    expect(parseByteRange("bytes=-500", 100)).toEqual({ start: 0, end: 99 });
    expect(parseByteRange("bytes=50-500", 100)).toEqual({ start: 50, end: 99 });
    expect(parseByteRange("bytes=100-", 100)).toBe("unsatisfiable");
    expect(parseByteRange("bytes=-0", 100)).toBe("unsatisfiable");
    // Not one range the service serves: ignored, as RFC 9110 allows.
    expect(parseByteRange("bytes=0-1,5-6", 100)).toBe("whole");
    expect(parseByteRange("items=0-1", 100)).toBe("whole");
    expect(parseByteRange("bytes=9-2", 100)).toBe("whole");
  });
});

describe("the Postgres object store", () => {
  let t: Awaited<ReturnType<typeof createTestDeps>>;
  beforeAll(async () => {
    t = await createTestDeps();
  });
  afterAll(() => t.close());

  it("puts, gets and deletes by id; a deleted object answers gone", async () => {
    const owner = await createUser(t.deps, {});
    const stored = await postgresObjectStore.put(t.deps.db, {
      ownerId: owner.id,
      mimeType: "audio/wav",
      bytes: wavBytes(),
      now: t.clock.now(),
    });
    expect(stored).toMatchObject({ id: expect.stringMatching(/^obj_/), size: wavBytes().length });
    expect((await postgresObjectStore.get(t.deps.db, stored.id))?.bytes.equals(wavBytes())).toBe(
      true,
    );
    await postgresObjectStore.delete(t.deps.db, stored.id, t.clock.now());
    expect(await postgresObjectStore.get(t.deps.db, stored.id)).toBeNull();
    expect(await postgresObjectStore.head(t.deps.db, stored.id)).toMatchObject({ deleted: true });
    expect(await postgresObjectStore.head(t.deps.db, "obj_missing")).toBeNull();
  });
});
