import { type AgentEvent, MAX_CALL_TRANSCRIPT_BYTES } from "@switchboard/contract";
import { addContact, blockAgent, createUser, endCall, setGrant } from "@switchboard/core";
import { agentApi, deps, newAgent } from "../support/fixtures";
import { expect, test } from "../support/test";

/**
 * Calls come from the messaging service's call system (here core's `endCall`, which the CLI's
 * `call end` also runs); agents hear of them over the real API.
 */
type CallEnded = Extract<AgentEvent, { type: "call.ended" }>;

async function callEvents(api: ReturnType<typeof agentApi>): Promise<CallEnded[]> {
  const body = await (await api.get("/updates?afterSeq=0")).json();
  return body.events.filter((e: CallEnded) => e.type === "call.ended");
}

const scopes = ["messages:read", "calls:read"] as const;

test("call.ended reaches only agents the participant granted calls:read, about that participant", async ({
  request,
}) => {
  const ann = await createUser(deps(), { displayName: "Ann" });
  const bob = await createUser(deps(), { displayName: "Bob" });
  const granted = await newAgent({ scopes: [...scopes] });
  const ungranted = await newAgent({ scopes: [...scopes] });
  const blocked = await newAgent({ scopes: [...scopes] });
  const revoked = await newAgent({ scopes: [...scopes] });
  const notAdded = await newAgent({ scopes: [...scopes] });
  await addContact(deps(), ann.id, granted.agent.id, ["calls:read"]);
  await addContact(deps(), ann.id, ungranted.agent.id, ["messages:read"]);
  await addContact(deps(), ann.id, blocked.agent.id, ["calls:read"]);
  await blockAgent(deps(), ann.id, blocked.agent.id);
  await addContact(deps(), ann.id, revoked.agent.id, ["calls:read"]);

  const { callId } = await endCall(deps(), {
    participants: [
      { user: ann.id, summary: "Ann's summary" },
      { user: bob.id, summary: "Bob's summary" },
    ],
    duration: 42,
    transcript: "Ann: hello\nBob: hi",
  });
  // Revoked after the call ended: the stored event is withheld when read.
  await setGrant(deps(), ann.id, revoked.agent.id, ["messages:read"]);

  const [event, ...more] = await callEvents(agentApi(request, granted.auth));
  expect(more).toEqual([]);
  expect(event).toMatchObject({ type: "call.ended", agentId: granted.agent.id });
  expect(event?.payload).toEqual({
    callId,
    user: { id: ann.id, num: ann.num, displayName: "Ann", avatarUrl: null, userType: "person" },
    participants: [
      { id: ann.id, num: ann.num, displayName: "Ann", avatarUrl: null, userType: "person" },
      { id: bob.id, num: bob.num, displayName: "Bob", avatarUrl: null, userType: "person" },
    ],
    isGroup: false,
    startedAt: expect.any(String),
    endedAt: expect.any(String),
    duration: 42,
    summary: "Ann's summary",
    transcript: "Ann: hello\nBob: hi",
    transcriptTruncated: false,
  });
  expect(
    Date.parse(event?.payload.endedAt ?? "") - Date.parse(event?.payload.startedAt ?? ""),
  ).toBe(42_000);
  for (const other of [ungranted, blocked, revoked, notAdded])
    expect(await callEvents(agentApi(request, other.auth))).toEqual([]);
});

test("a group call tells each agent about every participant who granted it, each with their summary", async ({
  request,
}) => {
  const people = await Promise.all(
    ["A", "B", "C"].map((name) => createUser(deps(), { displayName: name })),
  );
  const [a, b, c] = people as [(typeof people)[0], (typeof people)[0], (typeof people)[0]];
  const shared = await newAgent({ scopes: [...scopes] });
  await addContact(deps(), a.id, shared.agent.id, ["calls:read"]);
  await addContact(deps(), b.id, shared.agent.id, ["calls:read"]);
  await addContact(deps(), c.id, shared.agent.id, []);
  const { callId } = await endCall(deps(), {
    participants: [
      { user: a.num, summary: "for A" },
      { user: b.num, summary: "for B" },
      { user: c.num, summary: "for C" },
    ],
    isGroup: true,
    duration: 600,
    transcript: "a group talked",
  });
  const events = await callEvents(agentApi(request, shared.auth));
  expect(events.map((e) => [e.payload.user.id, e.payload.summary]).sort()).toEqual(
    [
      [a.id, "for A"],
      [b.id, "for B"],
    ].sort(),
  );
  for (const e of events)
    expect(e.payload).toMatchObject({
      callId,
      isGroup: true,
      participants: [{ id: a.id }, { id: b.id }, { id: c.id }],
      transcript: "a group talked",
    });
});

test("the transcript is cut at exactly 32 KB of UTF-8, never inside a character", async ({
  request,
}) => {
  const ann = await createUser(deps(), {});
  const bob = await createUser(deps(), {});
  const { auth, agent } = await newAgent({ scopes: [...scopes] });
  await addContact(deps(), ann.id, agent.id, ["calls:read"]);
  const end = (transcript: string) =>
    endCall(deps(), {
      participants: [
        { user: ann.id, summary: "s" },
        { user: bob.id, summary: "s" },
      ],
      transcript,
    });
  // 32,768 bytes exactly: 10,922 three-byte "€" and "ab".
  const exact = `${"€".repeat(10_922)}ab`;
  expect(Buffer.byteLength(exact)).toBe(MAX_CALL_TRANSCRIPT_BYTES);
  // One byte over: "a" and 10,923 "€"; the last one starts at byte 32,767 and would be split.
  const over = `a${"€".repeat(10_923)}`;
  await end(exact);
  await end(over);
  const [whole, cut] = (await callEvents(agentApi(request, auth))).map((e) => e.payload);
  expect(whole?.transcript).toBe(exact);
  expect(whole?.transcriptTruncated).toBe(false);
  expect(cut?.transcriptTruncated).toBe(true);
  expect(cut?.transcript).toBe(`a${"€".repeat(10_922)}`);
  expect(Buffer.byteLength(cut?.transcript ?? "")).toBe(MAX_CALL_TRANSCRIPT_BYTES - 1);
  expect(cut?.transcript).not.toContain("\uFFFD");
});

test("an untranscribed call has summary and transcript null", async ({ request }) => {
  const ann = await createUser(deps(), {});
  const bob = await createUser(deps(), {});
  const { auth, agent } = await newAgent({ scopes: [...scopes] });
  await addContact(deps(), bob.id, agent.id, ["calls:read"]);
  await endCall(deps(), { participants: [{ user: ann.id }, { user: bob.id }], duration: 3 });
  const [event] = await callEvents(agentApi(request, auth));
  expect(event?.payload).toMatchObject({
    user: { id: bob.id },
    summary: null,
    transcript: null,
    transcriptTruncated: false,
  });
});
