import { type ClientFrameType, clientFrameSchemas, ServerFrame } from "@switchboard/contract";
import { addContact, createUser } from "@switchboard/core";
import { appendEvents, createTestDeps, taggedEvent } from "@switchboard/core/testing";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { closeServers, connect, newStreamAgent, startWorker } from "./test-client";

/**
 * Property-based fuzzing of the stream's client frames: schema-shaped frames with odd values,
 * arbitrary JSON, deep nesting, NUL and lone surrogates, text that is not JSON, binary frames and
 * text frames that are not UTF-8. Each one is answered, in order, by error frames with a known
 * code (never `internal_error`) or by closing with a code the WebSocket protocol gives it; the
 * worker never falls over, and a fresh connection streams normally afterwards. FUZZ_RUNS sets
 * the number of frames (`npm run fuzz` runs many); a failure prints the seed (FUZZ_SEED replays).
 */

const numRuns = Number(process.env.FUZZ_RUNS ?? 40);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
/** Close codes a hostile frame may earn: 1007 text that is not UTF-8, 1009 too big. */
const ALLOWED_CLOSES = new Set([1007, 1009]);

let t: Awaited<ReturnType<typeof createTestDeps>>;
let worker: Awaited<ReturnType<typeof startWorker>>;
let token = "";
let agentId = "";
let conversationId = "";

beforeAll(async () => {
  t = await createTestDeps({
    env: { STREAM_FRAMES_PER_MIN: "100000", STREAM_MAX_CONNECTIONS: "100000" },
  });
  worker = await startWorker(t.deps);
  ({ token, agentId } = await newStreamAgent(t.deps));
  const person = await createUser(t.deps, { displayName: "Pat" });
  ({ conversationId } = await addContact(t.deps, person.id, agentId, []));
});
afterAll(async () => {
  await closeServers();
  await t?.close();
});

const nasty = fc.constantFrom(
  "",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfff",
  "😀",
  "x".repeat(20_000),
);
const leaf = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.string({ unit: "binary", maxLength: 20 }),
  nasty,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(1e308, Number.MAX_SAFE_INTEGER + 2),
);
const { value } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    leaf,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie("value"), { maxKeys: 3 }),
  ),
}));
const frameTypes = Object.keys(clientFrameSchemas) as ClientFrameType[];
const fieldNames = ["streamId", "conversationId", "to", "text", "replyToId", "type"];

/** What one fuzzed frame is: text (JSON or not) or raw bytes. */
type Sent = { text: string } | { bytes: Buffer; binary: boolean };

const sent: fc.Arbitrary<Sent> = fc.oneof(
  // Shaped like a real frame: a real type, real field names, odd (or real) values.
  fc
    .record({
      type: fc.constantFrom(...frameTypes),
      fields: fc.dictionary(
        fc.constantFrom(...fieldNames),
        fc.oneof(value, fc.constant(conversationId || "cnv_x"), fc.constant("s1")),
        { maxKeys: 4 },
      ),
    })
    .map(({ type, fields }) => ({ text: JSON.stringify({ ...fields, type }) })),
  value.map((v) => ({ text: JSON.stringify(v) ?? "null" })),
  fc.integer({ min: 100, max: 50_000 }).map((n) => ({ text: "[".repeat(n) + "]".repeat(n) })),
  fc
    .integer({ min: 100, max: 5_000 })
    .map((n) => ({ text: `${'{"type":"ping","a":'.repeat(n)}1${"}".repeat(n)}` })),
  fc.constantFrom(
    { text: "" },
    { text: "not json" },
    { text: '{"type":"typing","conversationId":"a\\u0000b"}' },
    { text: '{"type":"reply.start","streamId":"\\ud800","conversationId":"c"}' },
  ),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => ({ bytes: Buffer.from(bytes), binary: true })),
  fc.constant({ bytes: Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), binary: false }), // not UTF-8
);

it("answers every fuzzed frame with known error codes or a protocol close, and keeps streaming", async () => {
  await fc.assert(
    fc.asyncProperty(sent, async (frame) => {
      const client = connect(`${worker.url}?token=${token}`);
      await client.opened;
      await client.until(1); // hello
      if ("text" in frame) client.ws.send(frame.text);
      else client.ws.send(frame.bytes, { binary: frame.binary });
      client.send({ type: "ping" });
      const outcome = await Promise.race([
        client.closed,
        (async () => {
          while (!client.frames.some((f) => f.type === "pong"))
            await client.until(client.frames.length + 1);
          return null;
        })(),
      ]);
      const answers = client.frames.slice(
        1,
        client.frames.findIndex((f) => f.type === "pong") >>> 0,
      );
      for (const answer of answers) {
        const parsed = ServerFrame.parse(answer);
        if (parsed.type === "error") expect(parsed.error.code).not.toBe("internal_error");
      }
      if (outcome)
        expect(ALLOWED_CLOSES.has(outcome.code), `closed ${outcome.code} ${outcome.reason}`).toBe(
          true,
        );
      client.ws.terminate();
    }),
    { numRuns, seed, endOnFailure: false },
  );

  // Afterwards the worker streams as before.
  const client = connect(`${worker.url}?token=${token}`);
  await client.opened;
  await client.until(1);
  await t.deps.db.transaction((tx) =>
    appendEvents(tx, new Date(), [taggedEvent(agentId, "after the fuzz")]),
  );
  await client.until(2);
  expect(client.frames[1]).toMatchObject({ type: "event" });
  client.ws.close();
}, 300_000);
