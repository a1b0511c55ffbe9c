import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  assertAgentActive,
  authenticateAgent,
  authenticateDeveloper,
  CoreError,
  getAgentMe,
  readEvents,
} from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const main = fileURLToPath(new URL("./main.ts", import.meta.url));
let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

/** Runs the real CLI against the test database, as an operator would. */
async function cli(...args: string[]) {
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", main, ...args],
      {
        env: { ...process.env, DATABASE_URL: t.config.DATABASE_URL },
      },
    );
    return { code: 0, out: stdout.startsWith("{") ? JSON.parse(stdout) : null, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return {
      code: e.code,
      out: null,
      stdout: e.stdout,
      stderr: e.stderr,
      err: JSON.parse(e.stderr),
    };
  }
}

async function codeOf(promise: Promise<unknown>) {
  try {
    await promise;
    return "ok";
  } catch (error) {
    if (error instanceof CoreError) return error.code;
    throw error;
  }
}

describe("accounts", () => {
  it("creates people, agents, tokens and keys with the contract's output shapes", async () => {
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
    const [byNum, chosen] = await Promise.all([
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
      cli("user", "create", "--num", "321-654-987"),
    ]);
    expect(byNum.out).toEqual({
      agent: {
        id: expect.stringMatching(/^agt_/),
        num: expect.stringMatching(/^800-\d{3}-\d{3}$/),
      },
    });
    expect(chosen.out.user).toMatchObject({
      num: "321-654-987",
      displayName: null,
      userType: "person",
    });
    expect(await getAgentMe(t.deps, byNum.out.agent.id)).toMatchObject({
      ownerId: ada.out.user.id,
      requestedScopes: ["messages:read", "tasks:read"],
      requestPrivacy: "nobody",
      bio: "hi",
    });
  });

  it("mints and revokes tokens, pauses and resumes, by id or number", async () => {
    const owner = (await cli("user", "create")).out.user;
    const agent = (await cli("agent", "create", "--owner", owner.id, "--name", "A")).out.agent;
    const [{ out: byNum }, { out: expiring }] = await Promise.all([
      cli("token", "mint", "--agent", agent.num),
      cli("token", "mint", "--agent", agent.id, "--expires", "2099-01-01T00:00:00Z"),
    ]);
    expect(byNum.token).toMatch(/^sbat_/);
    expect((await authenticateAgent(t.deps, expiring.token)).agentId).toBe(agent.id);

    expect((await cli("agent", "pause", "--agent", agent.num)).out).toEqual({ ok: true });
    expect(await codeOf(authenticateAgent(t.deps, byNum.token).then(assertAgentActive))).toBe(
      "agent_paused",
    );
    expect((await cli("agent", "resume", "--agent", agent.id)).out).toEqual({ ok: true });
    expect(await codeOf(authenticateAgent(t.deps, byNum.token).then(assertAgentActive))).toBe("ok");

    expect((await cli("user", "suspend", "--user", owner.num)).out).toEqual({ ok: true });
    expect(await codeOf(authenticateAgent(t.deps, byNum.token))).toBe("unauthorized");
    await cli("user", "unsuspend", "--user", owner.id);

    expect((await cli("token", "revoke", "--token", byNum.token)).out).toEqual({ ok: true });
    expect(await codeOf(authenticateAgent(t.deps, byNum.token))).toBe("token_revoked");
  });

  it("creates and revokes developer keys with their scopes", async () => {
    const user = (await cli("user", "create")).out.user;
    const [{ out: key }, { out: scopeless }] = await Promise.all([
      cli("devkey", "create", "--user", user.num, "--scopes", "self-chat:write"),
      cli("devkey", "create", "--user", user.id, "--scopes", ""),
    ]);
    expect(await authenticateDeveloper(t.deps, key.key)).toMatchObject({
      userId: user.id,
      scopes: ["self-chat:write"],
    });
    expect((await authenticateDeveloper(t.deps, scopeless.key)).scopes).toEqual([]);
    expect((await cli("devkey", "revoke", "--key", key.key)).out).toEqual({ ok: true });
    expect(await codeOf(authenticateDeveloper(t.deps, key.key))).toBe("key_revoked");
  });
});

describe("errors", () => {
  it("prints one error object on stderr, nothing on stdout, and exits non-zero", async () => {
    await cli("user", "create", "--num", "111-222-333");
    const cases: [string[], string, RegExp][] = [
      [["frobnicate"], "validation_error", /Unknown command/],
      [["agent", "create", "--name", "x"], "validation_error", /Missing --owner/],
      [["agent", "create", "--owner", "nobody-here", "--name", "x"], "not_found", /nobody-here/],
      [["user", "create", "--colour", "red"], "validation_error", /colour/],
      [["user", "create", "--num", "12-34"], "validation_error", /num/],
      [["user", "create", "--num", "111-222-333"], "conflict", /taken/],
      [
        ["devkey", "create", "--user", "111-222-333", "--scopes", "everything"],
        "validation_error",
        /scopes/,
      ],
      [
        ["token", "mint", "--agent", "800-000-000", "--expires", "tomorrow"],
        "validation_error",
        /ISO/,
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(...args)));
    results.forEach((result, i) => {
      const [args, code, message] = cases[i]!;
      expect(result.code, args.join(" ")).not.toBe(0);
      expect(result.stdout, args.join(" ")).toBe("");
      expect(result.err.error.code, args.join(" ")).toBe(code);
      expect(result.err.error.message, args.join(" ")).toMatch(message);
    });
    const scopes = await cli(
      "agent",
      "create",
      "--owner",
      "111-222-333",
      "--name",
      "x",
      "--scopes",
      "messages:read,files:read",
    );
    expect(scopes.err.error.code).toBe("validation_error");
  });

  it("prints usage for --help", async () => {
    const help = await cli("--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("token mint --agent AGENT [--expires ISO]");
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
