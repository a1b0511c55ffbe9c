import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { promisify } from "node:util";
import {
  addContact,
  assertAgentActive,
  authenticateAgent,
  authenticateDeveloper,
  createAgent,
  createUser,
  getAgentMe,
  listAgentTokens,
  listDeveloperKeys,
  listOwnRecords,
  listPersonEmailThreads,
  proposeAction,
  readEvents,
} from "@switchboard/core";
import { codeOf, createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runCli } from "./command";
import { emailCommands } from "./commands/email";
import { userCommands } from "./commands/user";
import { cliBin, runInProcess } from "./testing";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

/** Runs the CLI against the test database, as an operator would (in this process). */
async function cli(...args: string[]) {
  const { code, stdout, stderr } = await runInProcess(t.config.DATABASE_URL as string, args);
  return {
    code,
    out: code === 0 && stdout.startsWith("{") ? JSON.parse(stdout) : null,
    stdout,
    stderr,
    err: code === 0 ? undefined : JSON.parse(stderr),
  };
}

/** The real program, spawned as `npm run -s cli` does: its exit code and both streams. */
async function spawnCli(...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [cliBin, ...args], {
      env: { ...process.env, DATABASE_URL: t.config.DATABASE_URL },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("accounts", () => {
  it("creates people and agents with the contract's output shapes, owners by number or id", async () => {
    const ada = await cli(
      "user",
      "create",
      "--name",
      "Ada",
      "--type",
      "business",
      "--email",
      "ada@cli.test",
      "--password",
      "long enough",
    );
    expect(ada.code).toBe(0);
    expect(ada.out).toEqual({
      user: {
        id: expect.stringMatching(/^usr_/),
        num: expect.stringMatching(/^\d{3}-\d{3}-\d{3}$/),
        displayName: "Ada",
        userType: "business",
      },
    });
    const [byNum, byId, chosen] = await Promise.all([
      cli(
        "agent",
        "create",
        "--owner",
        ada.out.user.num,
        "--name",
        "Helper",
        "--scopes",
        "tasks:read,messages:read",
        "--privacy",
        "nobody",
        "--bio",
        "hi",
      ),
      cli("agent", "create", "--owner", ada.out.user.id, "--name", "Plain"),
      // `help` as a flag's value is a value, not a request for help.
      cli("user", "create", "--num", "321-654-987", "--name", "help"),
    ]);
    expect(byNum.out).toEqual({
      agent: {
        id: expect.stringMatching(/^agt_/),
        num: expect.stringMatching(/^800-\d{3}-\d{3}$/),
      },
    });
    expect(chosen.out.user).toMatchObject({
      num: "321-654-987",
      displayName: "help",
      userType: "person",
    });
    expect(await getAgentMe(t.deps, byNum.out.agent.id)).toMatchObject({
      ownerId: ada.out.user.id,
      requestedScopes: ["messages:read", "tasks:read"],
      requestPrivacy: "nobody",
      bio: "hi",
    });
    expect(await getAgentMe(t.deps, byId.out.agent.id)).toMatchObject({
      ownerId: ada.out.user.id,
      displayName: "Plain",
      requestedScopes: [],
      requestPrivacy: "everyone",
    });
  });

  it("mints and revokes tokens, pauses and resumes, suspends and unsuspends, by id or number", async () => {
    // Accounts made in-process (their CLI shapes are covered above); each round of CLI calls
    // runs in parallel on separate accounts so that the test spawns few rounds.
    const pausedOwner = await createUser(t.deps, {});
    const paused = await createAgent(t.deps, { ownerId: pausedOwner.id, displayName: "P" });
    const suspended = await createUser(t.deps, {});
    const ofSuspended = await createAgent(t.deps, { ownerId: suspended.id, displayName: "S" });

    const [byNum, byId, other] = await Promise.all([
      cli("token", "mint", "--agent", paused.num),
      cli(
        "token",
        "mint",
        "--agent",
        paused.id,
        "--expires",
        "2099-01-01T00:00:00+02:00",
        "--name",
        "laptop",
      ),
      cli("token", "mint", "--agent", ofSuspended.num),
    ]);
    expect(byNum.out).toEqual({ token: expect.stringMatching(/^sbat_/) });
    const principal = await authenticateAgent(t.deps, byId.out.token);
    expect(principal.agentId).toBe(paused.id);
    expect(
      (await listAgentTokens(t.deps, paused.id)).map((k) => `${k.expiresAt} ${k.name}`).sort(),
    ).toEqual(["2098-12-31T22:00:00.000Z laptop", "null null"]);
    expect(await codeOf(authenticateAgent(t.deps, other.out.token))).toBe("ok");

    const round2 = await Promise.all([
      cli("agent", "pause", "--agent", paused.num),
      cli("user", "suspend", "--user", suspended.num),
      cli("token", "revoke", "--token", byId.out.token),
    ]);
    for (const result of round2) expect(result.out).toEqual({ ok: true });
    expect(await codeOf(authenticateAgent(t.deps, byNum.out.token).then(assertAgentActive))).toBe(
      "agent_paused",
    );
    expect(await codeOf(authenticateAgent(t.deps, other.out.token))).toBe("unauthorized");
    expect(await codeOf(authenticateAgent(t.deps, byId.out.token))).toBe("token_revoked");

    const round3 = await Promise.all([
      cli("agent", "resume", "--agent", paused.id),
      cli("user", "unsuspend", "--user", suspended.id),
    ]);
    for (const result of round3) expect(result.out).toEqual({ ok: true });
    expect(await codeOf(authenticateAgent(t.deps, byNum.out.token).then(assertAgentActive))).toBe(
      "ok",
    );
    expect(await codeOf(authenticateAgent(t.deps, other.out.token).then(assertAgentActive))).toBe(
      "ok",
    );
    expect(await codeOf(authenticateAgent(t.deps, byId.out.token))).toBe("token_revoked");
  });

  it("creates and revokes developer keys with their scopes and expiry, by number or id", async () => {
    const user = await createUser(t.deps, {});
    const [{ out: key }, { out: scopeless }] = await Promise.all([
      cli("devkey", "create", "--user", user.num, "--scopes", "self-chat:write"),
      cli(
        "devkey",
        "create",
        "--user",
        user.id,
        "--scopes",
        "",
        "--expires",
        "2099-06-01T00:00:00Z",
        "--name",
        "deploy script",
      ),
    ]);
    expect(key).toEqual({ key: expect.any(String) });
    expect(await authenticateDeveloper(t.deps, key.key)).toMatchObject({
      userId: user.id,
      scopes: ["self-chat:write"],
    });
    expect((await authenticateDeveloper(t.deps, scopeless.key)).scopes).toEqual([]);
    expect(
      (await listDeveloperKeys(t.deps, user.id)).map((k) => `${k.expiresAt} ${k.name}`).sort(),
    ).toEqual(["2099-06-01T00:00:00.000Z deploy script", "null null"]);

    expect((await cli("devkey", "revoke", "--key", key.key)).out).toEqual({ ok: true });
    expect(await codeOf(authenticateDeveloper(t.deps, key.key))).toBe("key_revoked");
    expect(await codeOf(authenticateDeveloper(t.deps, scopeless.key))).toBe("ok");
  });
});

describe("errors and help", () => {
  it("prints one error object on stderr, nothing on stdout, and exits non-zero", async () => {
    const taken = await createUser(t.deps, { num: "111-222-333" });
    await createAgent(t.deps, { ownerId: taken.id, displayName: "A" });
    const usage = (line: string) => new RegExp(`usage: switchboard ${escapeRegExp(line)}`);
    const cases: [string[], string, RegExp[]][] = [
      [
        ["frobnicate"],
        "validation_error",
        [/Unknown command: frobnicate/, /\n {2}user create \[--name N\]/],
      ],
      [["user"], "validation_error", [/Missing subcommand: user/, /user unsuspend --user USER/]],
      [
        ["agent", "create", "--name", "x"],
        "validation_error",
        [/Missing --owner/, usage("agent create --owner USER --name N")],
      ],
      [["agent", "create", "--owner", "nobody-here", "--name", "x"], "not_found", [/nobody-here/]],
      [
        ["agent", "create", "--owner", "111-222-333", "--name", "x", "--scopes", "files:read"],
        "validation_error",
        [/scopes/, usage("agent create")],
      ],
      [["user", "create", "--colour", "red"], "validation_error", [/colour/, usage("user create")]],
      [["user", "create", "--type", "agent"], "validation_error", [/type/]],
      [["user", "create", "--num", "12-34"], "validation_error", [/num/, usage("user create")]],
      [["user", "create", "--num", "111-222-333"], "conflict", [/taken/]],
      [["user", "suspend", "--user"], "validation_error", [/--user/, usage("user suspend")]],
      [["user", "suspend", "--user", "x", "y"], "validation_error", [/Unexpected argument: y/]],
      [
        ["devkey", "create", "--user", "111-222-333", "--scopes", "everything"],
        "validation_error",
        [/scopes/, usage("devkey create")],
      ],
      [
        ["token", "mint", "--agent", "800-000-000", "--expires", "2099-01-01T00:00:00"],
        "validation_error",
        [/--expires must be an ISO 8601 date-time with an offset/, usage("token mint")],
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(...args)));
    results.forEach((result, i) => {
      const [args, code, messages] = cases[i]!;
      const what = args.join(" ");
      expect(result.code, what).not.toBe(0);
      expect(result.stdout, what).toBe("");
      expect(result.err.error.code, what).toBe(code);
      for (const message of messages) expect(result.err.error.message, what).toMatch(message);
    });
  });

  it("prints usage on stdout for no command, --help, a group's --help and a command's --help", async () => {
    const [none, help, group, one] = await Promise.all([
      cli(),
      cli("--help"),
      cli("token", "--help"),
      cli("devkey", "create", "--help"),
    ]);
    for (const result of [none, help, group, one]) {
      expect(result.code).toBe(0);
      expect(result.stderr).toBe("");
    }
    expect(none.stdout).toBe(help.stdout);
    expect(help.stdout).toContain("  start [--dev]");
    expect(help.stdout).toContain("  token mint --agent AGENT [--expires ISO] [--name NAME]");
    expect(help.stdout).toContain("  devkey revoke --key KEY");
    expect(group.stdout).toContain("  token revoke --token TOKEN");
    expect(group.stdout).not.toContain("devkey");
    expect(one.stdout).toBe(
      "usage: switchboard devkey create --user USER --scopes S,... [--expires ISO] [--name NAME]\n",
    );
  });

  it("the program itself: JSON on stdout and exit 0, usage on --help, one error object on stderr and exit 1", async () => {
    const [made, help, failed] = await Promise.all([
      spawnCli("user", "create", "--name", "Spawned"),
      spawnCli("--help"),
      spawnCli("user", "create", "--num", "12-34"),
    ]);
    expect([made.code, made.stderr]).toEqual([0, ""]);
    expect(JSON.parse(made.stdout).user.displayName).toBe("Spawned");
    expect([help.code, help.stderr]).toEqual([0, ""]);
    expect(help.stdout).toContain("  start [--dev]");
    expect([failed.code, failed.stdout]).toEqual([1, ""]);
    expect(JSON.parse(failed.stderr).error.code).toBe("validation_error");
  });

  it("refuses text that cannot be stored (NUL, lone surrogates) in any flag, JSON flags included", async () => {
    const ada = await createUser(t.deps, {});
    // A POSIX argv cannot carry NUL or a lone surrogate; JSON flags can, as escapes.
    const [record, payload] = await Promise.all([
      cli(
        ..."record create --type note --user".split(" "),
        ada.id,
        "--data",
        '{"content":"\\u0000"}',
      ),
      cli(
        ..."action approve --action x --user".split(" "),
        ada.id,
        "--edited-payload",
        '["\\ud800"]',
      ),
    ]);
    expect(record.err.error).toMatchObject({ code: "validation_error" });
    expect(record.err.error.message).toMatch(/^--data \(at content\) must not contain NUL/);
    expect(record.stdout).toBe("");
    expect(payload.err.error.message).toMatch(
      /^--edited-payload \(at 0\) must not contain unpaired/,
    );
    expect(await listOwnRecords(t.deps, ada.id, "note")).toEqual([]);
    // Any string flag, checked once where flags are parsed (runCli's callers are not bound by argv).
    const written: string[] = [];
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const codes = [
        await runCli(
          [..."email send --from x --to x --content hi --subject".split(" "), "a\0"],
          emailCommands,
        ),
        await runCli(["user", "create", "--name", "Ad\udc00a"], userCommands),
      ];
      expect(codes).toEqual([1, 1]);
    } finally {
      stderr.mockRestore();
    }
    expect(written.map((line) => JSON.parse(line).error)).toEqual([
      {
        code: "validation_error",
        message: expect.stringMatching(/^--subject must not contain NUL/),
      },
      {
        code: "validation_error",
        message: expect.stringMatching(/^--name must not contain unpaired/),
      },
    ]);
  });
});

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
