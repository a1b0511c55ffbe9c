import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import {
  addContact,
  createAgent,
  createUser,
  listPersonEmailThreads,
  proposeAction,
  readEvents,
} from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { schema } from "@switchboard/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runInProcessJson } from "./testing";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

/** Runs the CLI against the test database, as an operator would (in this process). */
const cli = (...args: string[]) => runInProcessJson(t.config.DATABASE_URL as string, args);

describe("as a person", () => {
  it("adds an agent, writes to it (text and a voice file), and manages consent", async () => {
    const owner = (await cli("user", "create")).out.user;
    const person = (await cli("user", "create", "--name", "Pat")).out.user;
    const agent = (
      await cli(
        "agent",
        "create",
        "--owner",
        owner.id,
        "--name",
        "A",
        "--scopes",
        "messages:read,messages:write",
      )
    ).out.agent;

    const added = await cli(
      "contact",
      "add",
      "--user",
      person.num,
      "--agent",
      agent.num,
      "--grant",
      "messages:read",
    );
    expect(added.out).toEqual({ conversationId: expect.stringMatching(/^cnv_/) });
    const text = await cli("send", "--from", person.num, "--to", agent.num, "--content", "hello");
    expect(text.out.message).toMatchObject({
      type: "text",
      content: "hello",
      senderId: person.id,
      senderNum: person.num,
    });

    const wav = Buffer.alloc(44 + 200);
    wav.write("RIFF", 0);
    wav.write("WAVE", 8);
    const file = `${mkdtempSync(`${tmpdir()}/sb-cli-`)}/note.wav`;
    writeFileSync(file, wav);
    const voice = await cli(
      "send",
      "--from",
      person.id,
      "--to",
      agent.id,
      "--type",
      "voice",
      "--audio",
      file,
      "--duration",
      "1.5",
    );
    expect(voice.out.message).toMatchObject({
      type: "voice",
      audio: { data: expect.stringMatching(/^\/objects\//), duration: "1.5" },
    });
    expect(
      (await cli("transcript", "--message", voice.out.message.id, "--text", "hi there")).out,
    ).toEqual({ ok: true });

    const events = (await readEvents(t.deps, agent.id, 0, 10)).events.map((e) => e.type);
    expect(events).toEqual([
      "contact.added",
      "message.received",
      "message.received",
      "message.transcript",
    ]);

    expect(
      (
        await cli(
          "grant",
          "set",
          "--user",
          person.id,
          "--agent",
          agent.id,
          "--scopes",
          "messages:read,messages:write",
        )
      ).out,
    ).toEqual({
      grantedScopes: ["messages:read", "messages:write"],
    });
    expect(
      (
        await cli(
          "initiation",
          "set",
          "--user",
          person.id,
          "--agent",
          agent.id,
          "--mode",
          "reply_only",
        )
      ).out,
    ).toEqual({ ok: true });
    expect((await cli("block", "--user", person.id, "--agent", agent.id)).out).toEqual({
      ok: true,
    });
    expect(
      (await cli("send", "--from", person.id, "--to", agent.id, "--content", "x")).err.error.code,
    ).toBe("blocked");
    expect((await cli("unblock", "--user", person.id, "--agent", agent.id)).out).toEqual({
      ok: true,
    });
    expect((await cli("contact", "remove", "--user", person.id, "--agent", agent.id)).out).toEqual({
      ok: true,
    });
    expect(
      (await cli("send", "--from", person.id, "--to", agent.id, "--content", "x")).err.error.code,
    ).toBe("not_a_contact");
    expect(
      (
        await cli(
          "initiation",
          "set",
          "--user",
          person.id,
          "--agent",
          agent.id,
          "--mode",
          "sometimes",
        )
      ).err.error.code,
    ).toBe("validation_error");
  });
});

describe("action reject", () => {
  it("passes the person's --reason and --choice to the agent, checked with precise errors", async () => {
    const owner = await createUser(t.deps, {});
    const person = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, {
      ownerId: owner.id,
      displayName: "Asker",
      requestedScopes: ["messages:read", "messages:write"],
    });
    const { conversationId } = await addContact(t.deps, person.id, agent.id, [
      "messages:read",
      "messages:write",
    ]);
    // The CLI decides on the system clock: propose on it too, so the card has not expired.
    const propose = async () => {
      const was = t.clock.now();
      t.clock.set(new Date());
      try {
        const proposed = await proposeAction(
          t.deps,
          { agentId: agent.id },
          { conversationId, kind: "book.table", title: "Book" },
        );
        return proposed.action.id;
      } finally {
        t.clock.set(was);
      }
    };
    const first = await propose();
    const reject = (...more: string[]) =>
      cli("action", "reject", "--user", person.id, "--action", first, ...more);

    const long = await reject("--reason", "x".repeat(501));
    expect(long.err.error).toEqual({
      code: "validation_error",
      message:
        "--reason: must be at most 500 characters\nusage: switchboard action reject --user USER --action ID [--reason TEXT] [--choice not_now|wrong_details|never]",
    });
    const choice = await reject("--choice", "later");
    expect(choice.err.error.message).toMatch(/^--choice: .*"not_now"\|"wrong_details"\|"never"/);

    const rejected = await reject("--reason", "  Not this week ", "--choice", "not_now");
    expect(rejected.out.action).toMatchObject({
      id: first,
      state: "rejected",
      rejection: { reason: "Not this week", choice: "not_now" },
    });
    // Without them: still a rejection, and the agent hears both fields null.
    const second = await propose();
    const plain = await cli("action", "reject", "--user", person.id, "--action", second);
    expect(plain.out.action.rejection).toEqual({ reason: null, choice: null });
    const { events } = await readEvents(t.deps, agent.id, 0, 10);
    expect(
      events
        .filter((e) => e.type === "action.rejected")
        .map((e) => (e.payload as { action: { rejection: unknown } }).action.rejection),
    ).toEqual([
      { reason: "Not this week", choice: "not_now" },
      { reason: null, choice: null },
    ]);
  });
});

describe("send covers every message type", () => {
  it("video (file and size) and contact (by number or id, with a name), each as its media group", async () => {
    const person = await createUser(t.deps, {});
    const owner = await createUser(t.deps, {});
    const friend = await createUser(t.deps, { displayName: "Friend" });
    const agent = await createAgent(t.deps, {
      ownerId: owner.id,
      displayName: "Viewer",
      requestedScopes: ["messages:read"],
    });
    await addContact(t.deps, person.id, agent.id, ["messages:read"]);
    const dir = mkdtempSync(`${tmpdir()}/sb-cli-`);
    // The smallest MP4 the service recognizes: an `ftyp` box.
    const mp4 = Buffer.alloc(64);
    mp4.writeUInt32BE(24, 0);
    mp4.write("ftypisom", 4, "latin1");
    mp4.write("isommp41", 16, "latin1");
    writeFileSync(`${dir}/clip.mp4`, mp4);
    const send = (...flags: string[]) =>
      cli("send", "--from", person.num, "--to", agent.num, ...flags);

    const video = await send(
      "--type",
      "video",
      "--video",
      `${dir}/clip.mp4`,
      "--width",
      "640",
      "--height",
      "360",
      "--content",
      "look",
    );
    expect(video.code).toBe(0);
    expect(video.out.message).toMatchObject({
      type: "video",
      content: "look",
      video: { data: expect.stringMatching(/^\/objects\//), width: 640, height: 360 },
    });

    const byNum = await send("--type", "contact", "--contact", friend.num, "--contact-name", "Fr");
    expect(byNum.out.message).toMatchObject({
      type: "contact",
      sharedContact: { id: friend.id, num: friend.num, name: "Fr" },
    });
    const byId = await send("--type", "contact", "--contact", friend.id);
    expect(byId.out.message).toMatchObject({
      type: "contact",
      sharedContact: { id: friend.id, num: friend.num, name: "Friend" },
    });

    // A contact needs someone; a field of another type is named.
    expect((await send("--type", "contact")).err.error.code).toBe("validation_error");
    const wrong = await send("--type", "contact", "--contact", friend.id, "--width", "3");
    expect(wrong.err.error.message).toMatch(/mediaWidth: not allowed on contact messages/);
  });
});

describe("person-to-person contacts", () => {
  it("contact add --person makes an agent's contacts_of_contacts request privacy reachable", async () => {
    // The owner has their own agent added; the person knows the owner only once they add them.
    const friend = await createUser(t.deps, { displayName: "Friend" });
    const person = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, {
      ownerId: friend.id,
      displayName: "Picky",
      requestedScopes: ["messages:read"],
      requestPrivacy: "contacts_of_contacts",
    });
    await addContact(t.deps, friend.id, agent.id, []);
    const addAgent = () =>
      cli("contact", "add", "--user", person.num, "--agent", agent.num, "--grant", "");
    expect((await addAgent()).err.error.code).toBe("forbidden");

    const added = await cli("contact", "add", "--user", person.num, "--person", friend.num);
    expect(added.out).toEqual({ contact: expect.objectContaining({ id: friend.id }) });
    expect((await addAgent()).out).toEqual({ conversationId: expect.stringMatching(/^cnv_/) });
    // Neither both kinds at once nor an agent as a person.
    const both = await cli(
      "contact",
      "add",
      "--user",
      person.num,
      "--person",
      friend.num,
      "--agent",
      agent.num,
    );
    expect(both.err.error.code).toBe("validation_error");
  });
});

describe("email", () => {
  it("email send starts a thread, replies with --thread, and several --to make a group", async () => {
    const owner = await createUser(t.deps, {});
    const person = await createUser(t.deps, { displayName: "Pat" });
    const friend = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, {
      ownerId: owner.id,
      displayName: "Mail",
      requestedScopes: ["emails:read", "emails:write"],
    });
    await addContact(t.deps, person.id, agent.id, ["emails:read"]);
    const email = (...flags: string[]) => cli("email", "send", "--from", person.num, ...flags);

    const first = await email("--to", agent.num, "--subject", "Hello", "--content", "First");
    expect(first.out).toEqual({
      threadId: expect.stringMatching(/^eth_/),
      messageId: expect.stringMatching(/^eml_/),
    });
    const reply = await email(
      "--to",
      agent.num,
      "--thread",
      first.out.threadId,
      "--content",
      "2nd",
    );
    expect(reply.out).toEqual({ threadId: first.out.threadId, messageId: expect.any(String) });
    const { events } = await readEvents(t.deps, agent.id, 0, 100);
    expect(
      events.flatMap((e) => (e.type === "email.received" ? [e.payload.email?.content] : [])),
    ).toEqual(["First", "2nd"]);

    const group = await email(
      "--to",
      `${agent.id},${friend.num}`,
      "--subject",
      "All of us",
      "--content",
      "Hi both",
    );
    const {
      threads: [listed],
    } = await listPersonEmailThreads(t.deps, friend.id);
    expect(listed).toMatchObject({ id: group.out.threadId, isGroup: true, subject: "All of us" });

    expect((await email("--to", agent.num, "--content", "no subject")).err.error.code).toBe(
      "validation_error",
    );
    expect((await email("--to", agent.num, "--subject", "S")).err.error.message).toMatch(
      /--content/,
    );
  });
});

describe("calls", () => {
  it("call end records a call and tells agents granted calls:read, with the usage on bad flags", async () => {
    const owner = await createUser(t.deps, {});
    const agent = await createAgent(t.deps, {
      ownerId: owner.id,
      displayName: "Calls",
      requestedScopes: ["calls:read"],
    });
    const [ann, bob, cy] = [
      await createUser(t.deps, {}),
      await createUser(t.deps, {}),
      await createUser(t.deps, {}),
    ];
    await addContact(t.deps, ann.id, agent.id, ["calls:read"]);
    const ended = await cli(
      "call",
      "end",
      "--user",
      ann.num,
      "--participants",
      `${bob.num},${cy.id}`,
      "--group",
      "--duration",
      "90",
      "--summary",
      "We planned the trip.",
      "--transcript",
      "Ann: Lisbon?",
    );
    expect(ended.out).toEqual({ callId: expect.stringMatching(/^cal_/) });
    const [event] = (await readEvents(t.deps, agent.id, 0, 10)).events.filter(
      (e) => e.type === "call.ended",
    );
    expect(event?.payload).toMatchObject({
      callId: ended.out.callId,
      user: { id: ann.id },
      participants: [{ id: ann.id }, { id: bob.id }, { id: cy.id }],
      isGroup: true,
      duration: 90,
      summary: "We planned the trip.",
      transcript: "Ann: Lisbon?",
      transcriptTruncated: false,
    });

    // --participants may name the user again; a 1:1 call without --group is two people.
    const oneToOne = await cli(
      "call",
      "end",
      "--user",
      ann.id,
      "--participants",
      `${ann.id},${bob.id}`,
    );
    expect(oneToOne.out).toEqual({ callId: expect.stringMatching(/^cal_/) });
    for (const args of [
      ["--participants", `${bob.id},${cy.id}`],
      ["--participants", bob.id, "--duration", "1.5"],
      ["--participants", bob.id, "--summary", "no transcript"],
    ]) {
      const refused = await cli("call", "end", "--user", ann.id, ...args);
      expect(refused.err.error.code).toBe("validation_error");
      expect(refused.err.error.message).toMatch(/usage: switchboard call end --user USER/);
    }
  });
});

// Issue 42: no CLI command writes a key into the database (keys live in the environment or the
// data directory's keys file). Last in the file, so it sees every command above.
it("leaves no key in the database after every command above", async () => {
  expect(await t.deps.db.select().from(schema.instanceSettings)).toEqual([]);
});
