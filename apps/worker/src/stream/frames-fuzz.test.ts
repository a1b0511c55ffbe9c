import {
  type ClientFrameType,
  clientFrameSchemas,
  findUnstorableText,
  ServerFrame,
} from "@switchboard/contract";
import { addContact, createUser, listPersonMessages } from "@switchboard/core";
import { appendEvents, createTestDeps, taggedEvent } from "@switchboard/core/testing";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { closeServers, connect, newStreamAgent, startWorker } from "./test-client";

/**
 * Property-based fuzzing of the stream's client frames: schema-shaped frames with odd values,
 * arbitrary JSON, deep nesting, NUL and lone surrogates, text that is not JSON, binary frames and
 * text frames that are not UTF-8. Each one is answered, in order, by error frames with a known
 * code (never `internal_error`) or by closing with a code the WebSocket protocol gives it; the
 * worker never falls over, and a fresh connection streams normally afterwards. Every text field
 * of every frame is also tried with NUL and lone surrogates: refused as `validation_error`, and
 * nothing from such a frame is stored (no message, no open reply). FUZZ_RUNS sets
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
let personId = "";

beforeAll(async () => {
  t = await createTestDeps({
    env: {
      STREAM_FRAMES_PER_MIN: "100000",
      STREAM_MAX_CONNECTIONS: "100000",
      // Every property run starts a reply to the same person.
      LIMIT_MESSAGES_PER_MIN: "100000",
      LIMIT_PER_RECIPIENT_PER_MIN: "100000",
      LIMIT_DAILY_MESSAGES: "100000",
    },
  });
  worker = await startWorker(t.deps);
  ({ token, agentId } = await newStreamAgent(t.deps));
  await t.deps.db
    .update(schema.agents)
    .set({ requestedScopes: ["messages:write"] })
    .where(eq(schema.agents.id, agentId));
  const person = await createUser(t.deps, { displayName: "Pat" });
  personId = person.id;
  ({ conversationId } = await addContact(t.deps, person.id, agentId, ["messages:write"]));
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

/** What is stored in the person's conversation: messages and open replies. */
async function stored() {
  const page = await listPersonMessages(t.deps, personId, conversationId);
  return { messages: page.messages.length, open: page.openReplies.length };
}

const odd = fc.constantFrom("\u0000", "a\u0000b", "\ud800", "x\udfff", "\udc00y", "ok\ud83d");
/** Each client frame with one of its text fields made odd; the others valid. */
const oddFrame = fc.oneof(
  odd.map((v) => ({
    frame: { type: "typing", conversationId: v, typing: true },
    path: "conversationId",
  })),
  odd.map((v) => ({
    frame: { type: "reply.start", streamId: v, conversationId },
    path: "streamId",
  })),
  odd.map((v) => ({
    frame: { type: "reply.start", streamId: "s", conversationId: v },
    path: "conversationId",
  })),
  odd.map((v) => ({ frame: { type: "reply.start", streamId: "s", to: v }, path: "to" })),
  odd.map((v) => ({ frame: { type: "reply.delta", streamId: "open", text: v }, path: "text" })),
  odd.map((v) => ({ frame: { type: "reply.delta", streamId: v, text: "t" }, path: "streamId" })),
  odd.map((v) => ({ frame: { type: "reply.end", streamId: v }, path: "streamId" })),
  odd.map((v) => ({ frame: { type: "reply.abort", streamId: v }, path: "streamId" })),
);

it("refuses NUL and lone surrogates in every text field as validation_error, storing nothing", async () => {
  const before = await stored();
  await fc.assert(
    fc.asyncProperty(oddFrame, async ({ frame, path }) => {
      const client = connect(`${worker.url}?token=${token}`);
      await client.opened;
      await client.until(1); // hello
      // A reply open on the connection, so a delta has something to (fail to) add to.
      client.send({ type: "reply.start", streamId: "open", conversationId });
      await client.until(2);
      expect(client.frames[1]).toMatchObject({ type: "reply.started" });
      client.send(frame);
      await client.until(3);
      expect(client.frames[2]).toMatchObject({
        type: "error",
        error: { code: "validation_error", issues: [{ path }] },
      });
      // The open reply was not touched, and ends unstored with its connection.
      const open = await listPersonMessages(t.deps, personId, conversationId);
      expect(open.openReplies.map((r) => r.text)).toEqual([""]);
      client.ws.close();
      await client.closed;
      await expect.poll(stored).toEqual(before);
    }),
    { numRuns: Math.min(numRuns, 30), seed, endOnFailure: false },
  );
}, 300_000);

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
        // A frame carrying text Postgres cannot store never gets past validation.
        if (parsed.type === "reply.started" && "text" in frame)
          expect(findUnstorableText(JSON.parse(frame.text))).toEqual([]);
      }
      if (outcome)
        expect(ALLOWED_CLOSES.has(outcome.code), `closed ${outcome.code} ${outcome.reason}`).toBe(
          true,
        );
      client.ws.terminate();
    }),
    { numRuns, seed, endOnFailure: false },
  );

  // Nothing a fuzzed frame started outlives its connection, and nothing was stored.
  await expect.poll(stored, { timeout: 10_000 }).toEqual({ messages: 0, open: 0 });

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
