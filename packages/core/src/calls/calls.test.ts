import type { AgentEvent, CallEndedPayload } from "@switchboard/contract";
import { MAX_CALL_TRANSCRIPT_BYTES } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockAgent } from "../consent/agent-settings";
import { addContact, removeContact, setGrant } from "../contacts/contacts";
import { readEvents } from "../events/read-events";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { coreFailure, createTestDeps } from "../testing";
import { capTranscript } from "./cap-transcript";
import { endCall } from "./end-call";
import { listPersonCalls } from "./person-calls";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const ALL = ["messages:read", "calls:read"] as const;

async function newAgent() {
  const owner = await createUser(t.deps, {});
  return createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Listener",
    requestedScopes: [...ALL],
  });
}

const failure = coreFailure;

const callEvents = async (agentId: string) =>
  (await readEvents(t.deps, agentId, 0, 100)).events.filter(
    (e): e is Extract<AgentEvent, { type: "call.ended" }> => e.type === "call.ended",
  );

describe("call.ended", () => {
  it("goes only to agents the participant added with calls:read granted when the call ends", async () => {
    t.clock.set("2026-08-01T09:00:00Z");
    const [ann, bob] = [
      await createUser(t.deps, { displayName: "Ann" }),
      await createUser(t.deps, {}),
    ];
    const granted = await newAgent();
    const withoutScope = await newAgent();
    const blocked = await newAgent();
    const removed = await newAgent();
    const revoked = await newAgent();
    const notAdded = await newAgent();
    const bobs = await newAgent();
    await addContact(t.deps, ann.id, granted.id, [...ALL]);
    await addContact(t.deps, ann.id, withoutScope.id, ["messages:read"]);
    await addContact(t.deps, ann.id, blocked.id, [...ALL]);
    await blockAgent(t.deps, ann.id, blocked.id);
    await addContact(t.deps, ann.id, removed.id, [...ALL]);
    await removeContact(t.deps, ann.id, removed.id);
    await addContact(t.deps, ann.id, revoked.id, [...ALL]);
    await setGrant(t.deps, ann.id, revoked.id, ["messages:read"]);
    await addContact(t.deps, bob.id, bobs.id, []);

    const { callId } = await endCall(t.deps, {
      participants: [
        { user: ann.num, summary: "Ann agreed to send the slides." },
        { user: bob.id, summary: "Bob will review them Friday." },
      ],
      duration: 125,
      transcript: "Ann: hi\nBob: hello",
    });
    expect(callId).toMatch(/^cal_/);

    const [event, ...more] = await callEvents(granted.id);
    expect(more).toEqual([]);
    expect(event?.payload).toEqual({
      callId,
      user: { id: ann.id, num: ann.num, displayName: "Ann", avatarUrl: null, userType: "person" },
      participants: [
        expect.objectContaining({ id: ann.id }),
        expect.objectContaining({ id: bob.id }),
      ],
      isGroup: false,
      startedAt: "2026-08-01T08:57:55.000Z",
      endedAt: "2026-08-01T09:00:00.000Z",
      duration: 125,
      summary: "Ann agreed to send the slides.",
      transcript: "Ann: hi\nBob: hello",
      transcriptTruncated: false,
    } satisfies CallEndedPayload);
    for (const agent of [withoutScope, blocked, removed, revoked, notAdded, bobs])
      expect(await callEvents(agent.id)).toEqual([]);

    // Stored with its person (for read-time consent), and never written for the others at all.
    const rows = await t.deps.db
      .select()
      .from(schema.events)
      .where(eq(schema.events.type, "call.ended"));
    expect(
      rows.filter((row) => row.payload && (row.payload as CallEndedPayload).callId === callId),
    ).toEqual([expect.objectContaining({ agentId: granted.id, personId: ann.id })]);

    // A grant given after the call does not reveal it.
    await setGrant(t.deps, ann.id, revoked.id, [...ALL]);
    expect(await callEvents(revoked.id)).toEqual([]);
  });

  it("in a group call, tells each agent about each participant who granted it, with their own summary", async () => {
    t.clock.set("2026-08-02T09:00:00Z");
    const [ann, bob, cy] = [
      await createUser(t.deps, {}),
      await createUser(t.deps, {}),
      await createUser(t.deps, {}),
    ];
    const shared = await newAgent();
    const bobsOwn = await newAgent();
    await addContact(t.deps, ann.id, shared.id, [...ALL]);
    await addContact(t.deps, bob.id, shared.id, [...ALL]);
    await addContact(t.deps, bob.id, bobsOwn.id, ["calls:read"]);
    await addContact(t.deps, cy.id, shared.id, ["messages:read"]);

    const { callId } = await endCall(t.deps, {
      participants: [
        { user: ann.id, summary: "for Ann" },
        { user: bob.id, summary: "for Bob" },
        { user: cy.id, summary: "for Cy" },
      ],
      isGroup: true,
      duration: 60,
      transcript: "three people talked",
    });
    const about = (events: Awaited<ReturnType<typeof callEvents>>) =>
      events.map((e) => [e.payload.user.id, e.payload.summary, e.payload.isGroup]).sort();
    expect(about(await callEvents(shared.id))).toEqual(
      [
        [ann.id, "for Ann", true],
        [bob.id, "for Bob", true],
      ].sort(),
    );
    expect(about(await callEvents(bobsOwn.id))).toEqual([[bob.id, "for Bob", true]]);
    const [one] = await callEvents(bobsOwn.id);
    expect(one?.payload).toMatchObject({
      callId,
      participants: [{ id: ann.id }, { id: bob.id }, { id: cy.id }],
      transcript: "three people talked",
    });
  });

  it("caps the shared transcript at 32 KB of UTF-8, cutting only between characters", async () => {
    t.clock.set("2026-08-03T09:00:00Z");
    const [ann, bob] = [await createUser(t.deps, {}), await createUser(t.deps, {})];
    const agent = await newAgent();
    await addContact(t.deps, ann.id, agent.id, ["calls:read"]);
    const end = (transcript: string) =>
      endCall(t.deps, {
        participants: [
          { user: ann.id, summary: "s" },
          { user: bob.id, summary: "s" },
        ],
        transcript,
      });
    const exact = `${"€".repeat((MAX_CALL_TRANSCRIPT_BYTES - 2) / 3)}ab`; // 32768 bytes exactly
    expect(Buffer.byteLength(exact)).toBe(MAX_CALL_TRANSCRIPT_BYTES);
    // Over the cap: the "€" (3 bytes) that starts at byte 32767 straddles it and goes whole.
    const euros = (MAX_CALL_TRANSCRIPT_BYTES - 2) / 3; // 10922 of them after "a": 32767 bytes
    const over = `a${"€".repeat(euros + 1)}`;
    const emoji = "😀".repeat(MAX_CALL_TRANSCRIPT_BYTES / 4 + 1);
    // Calls end one after another (the person's list is newest first).
    for (const transcript of [exact, over, emoji]) {
      await end(transcript);
      t.clock.advance(1000);
    }
    const [e1, e2, e3] = (await callEvents(agent.id)).map((e) => e.payload);
    expect(e1).toMatchObject({ transcript: exact, transcriptTruncated: false });
    expect(e2?.transcriptTruncated).toBe(true);
    expect(e2?.transcript).toBe(`a${"€".repeat(euros)}`);
    expect(Buffer.byteLength(e2?.transcript ?? "")).toBe(MAX_CALL_TRANSCRIPT_BYTES - 1);
    expect(e3?.transcriptTruncated).toBe(true);
    expect(e3?.transcript).toBe("😀".repeat(MAX_CALL_TRANSCRIPT_BYTES / 4));
    // The person's own view keeps the whole transcript.
    const [latest] = await listPersonCalls(t.deps, ann.id);
    expect(latest?.transcript).toBe(emoji);
  });

  it("an untranscribed call has null summary and transcript, and is not truncated", async () => {
    t.clock.set("2026-08-04T09:00:00Z");
    const [ann, bob] = [await createUser(t.deps, {}), await createUser(t.deps, {})];
    const agent = await newAgent();
    await addContact(t.deps, ann.id, agent.id, ["calls:read"]);
    await endCall(t.deps, { participants: [{ user: ann.id }, { user: bob.id }], duration: 5 });
    const [event] = await callEvents(agent.id);
    expect(event?.payload).toMatchObject({
      summary: null,
      transcript: null,
      transcriptTruncated: false,
      duration: 5,
    });
  });

  it("refuses what no call system would report", async () => {
    const [ann, bob, cy] = [
      await createUser(t.deps, {}),
      await createUser(t.deps, {}),
      await createUser(t.deps, {}),
    ];
    const agent = await newAgent();
    const codeOf = async (request: Parameters<typeof endCall>[1]) => {
      const error = await failure(endCall(t.deps, request));
      return [error?.code, error?.details.issues?.[0]?.path];
    };
    const two = [{ user: ann.id }, { user: bob.id }];
    expect(await codeOf({ participants: [{ user: ann.id }] })).toEqual([
      "validation_error",
      "participants",
    ]);
    expect(await codeOf({ participants: [...two, { user: cy.id }] })).toEqual([
      "validation_error",
      "participants",
    ]);
    expect(await codeOf({ participants: [{ user: ann.id }, { user: agent.id }] })).toEqual([
      "validation_error",
      "participants.1.user",
    ]);
    expect(await codeOf({ participants: [{ user: ann.id }, { user: ann.num }] })).toEqual([
      "validation_error",
      "participants.1.user",
    ]);
    expect(
      await codeOf({
        participants: [{ user: ann.id, summary: "no transcript" }, { user: bob.id }],
      }),
    ).toEqual(["validation_error", "participants.0.summary"]);
    expect(await codeOf({ participants: two, duration: -1 })).toEqual([
      "validation_error",
      "duration",
    ]);
    expect(await codeOf({ participants: two, transcript: "" })).toEqual([
      "validation_error",
      "transcript",
    ]);
    expect(
      (await failure(endCall(t.deps, { participants: [{ user: ann.id }, { user: "usr_nobody" }] })))
        ?.code,
    ).toBe("not_found");
  });
});

describe("a person's calls", () => {
  it("lists their calls newest first, with who was on each, their own summary and the transcript", async () => {
    t.clock.set("2026-08-05T09:00:00Z");
    const [ann, bob, cy] = [
      await createUser(t.deps, { displayName: "Ann" }),
      await createUser(t.deps, { displayName: "Bob" }),
      await createUser(t.deps, {}),
    ];
    const first = await endCall(t.deps, {
      participants: [
        { user: ann.id, summary: "Ann's view" },
        { user: bob.id, summary: "Bob's view" },
      ],
      duration: 30,
      transcript: "hello",
    });
    t.clock.advance(60_000);
    const second = await endCall(t.deps, {
      participants: [{ user: bob.id }, { user: ann.id }, { user: cy.id }],
      isGroup: true,
    });
    const anns = await listPersonCalls(t.deps, ann.id);
    expect(anns.map((call) => call.id)).toEqual([second.callId, first.callId]);
    expect(anns[1]).toEqual({
      id: first.callId,
      isGroup: false,
      participants: [
        expect.objectContaining({ id: ann.id, displayName: "Ann" }),
        expect.objectContaining({ id: bob.id, displayName: "Bob" }),
      ],
      startedAt: "2026-08-05T08:59:30.000Z",
      endedAt: "2026-08-05T09:00:00.000Z",
      duration: 30,
      summary: "Ann's view",
      transcript: "hello",
    });
    expect(anns[0]).toMatchObject({ isGroup: true, summary: null, transcript: null });
    expect(anns[0]?.participants.map((p) => p.id)).toEqual([bob.id, ann.id, cy.id]);
    expect((await listPersonCalls(t.deps, bob.id))[1]?.summary).toBe("Bob's view");
    expect((await listPersonCalls(t.deps, cy.id)).map((call) => call.id)).toEqual([second.callId]);
  });
});

describe("capTranscript", () => {
  it("keeps text that fits, and cuts before a character that would cross the cap", () => {
    expect(capTranscript(null)).toEqual({ transcript: null, transcriptTruncated: false });
    expect(capTranscript("abcd", 4)).toEqual({ transcript: "abcd", transcriptTruncated: false });
    expect(capTranscript("abcde", 4)).toEqual({ transcript: "abcd", transcriptTruncated: true });
    expect(capTranscript("ab€", 4)).toEqual({ transcript: "ab", transcriptTruncated: true });
    expect(capTranscript("a€", 4)).toEqual({ transcript: "a€", transcriptTruncated: false });
    expect(capTranscript("😀😀", 7)).toEqual({ transcript: "😀", transcriptTruncated: true });
    expect(capTranscript("é😀", 5)).toEqual({ transcript: "é", transcriptTruncated: true });
  });
});
