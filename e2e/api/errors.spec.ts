import { newAgent } from "../support/fixtures";
import { expectError } from "../support/http";
import { expect, test } from "../support/test";

test("malformed JSON, a wrong content type and a missing body are validation errors", async ({
  request,
}) => {
  const { auth } = await newAgent();
  const malformed = await request.patch("/api/agent/v1/me", {
    headers: { ...auth, "Content-Type": "application/json" },
    data: Buffer.from('{"displayName": "x",'),
  });
  expect((await expectError(malformed, 400, "validation_error")).message).toMatch(/JSON/);

  const wrongType = await request.patch("/api/agent/v1/me", {
    headers: { ...auth, "Content-Type": "text/plain" },
    data: Buffer.from('{"displayName":"x"}'),
  });
  expect((await expectError(wrongType, 400, "validation_error")).message).toMatch(/Content-Type/);

  const empty = await request.patch("/api/agent/v1/me", {
    headers: { ...auth, "Content-Type": "application/json" },
  });
  await expectError(empty, 400, "validation_error");
});

test("unknown routes answer 404 and unknown methods 405, in the envelope", async ({ request }) => {
  const { auth } = await newAgent();
  await expectError(
    await request.get("/api/agent/v1/nothing-here", { headers: auth }),
    404,
    "not_found",
  );
  await expectError(
    await request.post("/api/agent/v1/me/deeper", { headers: auth, data: {} }),
    404,
    "not_found",
  );
  await expectError(await request.get("/api/v1/nothing"), 404, "not_found");
  await expectError(await request.get("/api/nothing"), 404, "not_found");

  const wrongMethod = await request.delete("/api/agent/v1/me", { headers: auth });
  await expectError(wrongMethod, 405, "method_not_allowed");
  expect(wrongMethod.headers().allow).toBe("GET, PATCH");
  await expectError(await request.post("/api/v1/me", { data: {} }), 405, "method_not_allowed");
});

test("health check answers ok when the database does, and what speech and transcription run on", async ({
  request,
}) => {
  const response = await request.get("/api/healthz");
  expect(response.status()).toBe(200);
  // A default install (espeak-ng, ffmpeg and pocketsphinx from Debian, as .ci/run installs them).
  expect(await response.json()).toEqual({
    status: "ok",
    details: {
      speech: { engine: "espeak-ng", audio: "ogg/opus" },
      transcription: { engine: "pocketsphinx" },
    },
  });
});
