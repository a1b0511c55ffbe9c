import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config";
import { setInitiation } from "../consent/agent-settings";
import { addContact, removeContact, setGrant } from "../contacts/contacts";
import type { CoreDeps } from "../deps";
import { wakeAfterCommit } from "../events/notifier";
import { claimIdempotencyKey } from "../idempotency/idempotency-keys";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { newId } from "../ids";
import { getAgentUsage } from "../limits/charge-send";
import { listAgentMessages } from "../messaging/list-agent-messages";
import { sendAgentMessage } from "../messaging/send-agent-message";
import { sendPersonMessage } from "../messaging/send-person-message";
import { wavBytes } from "../objects/test-media";
import { codeOf, createTestDeps } from "../testing";
import { runSend } from "./send-sequence";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

/**
 * A speech engine that records each run (one line in `runs`) as it starts; it waits for the
 * file `release` when `hold` is set, fails when `fail` is set, else writes a WAV.
 */
function recordingEngine() {
  const dir = mkdtempSync(path.join(tmpdir(), "tts-runs-"));
  const files = {
    runs: path.join(dir, "runs"),
    release: path.join(dir, "release"),
    hold: path.join(dir, "hold"),
    fail: path.join(dir, "fail"),
  };
  const script = path.join(dir, "engine.mjs");
  writeFileSync(
    script,
    `import { appendFileSync, existsSync } from "node:fs";
    const files = ${JSON.stringify(files)};
    appendFileSync(files.runs, "run\\n");
    if (existsSync(files.fail)) process.exit(4);
    const speak = () => process.stdout.write(Buffer.from(${JSON.stringify(wavBytes(800).toString("base64"))}, "base64"));
    process.stdin.resume();
    process.stdin.on("end", () => {
      if (!existsSync(files.hold)) return speak();
      const wait = setInterval(() => { if (existsSync(files.release)) { clearInterval(wait); speak(); } }, 20);
    });`,
  );
  const runs = () =>
    existsSync(files.runs) ? readFileSync(files.runs, "utf8").split("\n").length - 1 : 0;
  return { command: `node ${script}`, files, runs };
}

async function setup(env: Record<string, string>) {
  const engine = recordingEngine();
  const deps: CoreDeps = {
    ...t.deps,
    config: loadConfig({
      DATABASE_URL: t.config.DATABASE_URL,
      TTS_COMMAND: engine.command,
      ...env,
    }),
  };
  const owner = await createUser(deps, {});
  const person = await createUser(deps, {});
  const stranger = await createUser(deps, {});
  const agent = await createAgent(deps, {
    ownerId: owner.id,
    displayName: "Voice",
    requestedScopes: ["messages:read", "messages:write"],
  });
  const { conversationId } = await addContact(deps, person.id, agent.id, [
    "messages:read",
    "messages:write",
  ]);
  const speak = (to: string, text = "hello") =>
    sendAgentMessage(deps, { agentId: agent.id }, { to, type: "voice", tts: { text } });
  const stored = async () =>
    (await listAgentMessages(deps, agent.id, conversationId, { limit: 100 })).messages.length;
  return { deps, engine, agent, person, stranger, conversationId, speak, stored };
}

describe("the send sequence charges before slow work", () => {
  it("never starts the speech engine for a refused or rate-limited send", async () => {
    const { engine, person, stranger, speak, stored } = await setup({
      LIMIT_PER_RECIPIENT_PER_MIN: "2",
    });
    expect(await codeOf(speak(stranger.num))).toBe("not_a_contact");
    expect(engine.runs()).toBe(0);

    expect(await codeOf(speak(person.num))).toBe("ok");
    expect(await codeOf(speak(person.num))).toBe("ok");
    expect(engine.runs()).toBe(2);
    expect(await codeOf(speak(person.num))).toBe("conversation_rate_limited");
    expect(engine.runs()).toBe(2);
    expect(await stored()).toBe(2);
  });

  it("keeps the charge of a send whose synthesis fails, and stores nothing", async () => {
    const { engine, agent, person, speak, stored, deps } = await setup({});
    writeFileSync(engine.files.fail, "");
    const before = (await getAgentUsage(deps, agent.id)).usage.messages;
    expect(await codeOf(speak(person.num))).toBe("tts_failed");
    expect(engine.runs()).toBe(1);
    expect((await getAgentUsage(deps, agent.id)).usage.messages).toBe(before + 1);
    expect(await stored()).toBe(0);
  });

  it("holds no transaction open while speech is synthesized", async () => {
    const { engine, agent, person, speak, stored, deps } = await setup({});
    writeFileSync(engine.files.hold, "");
    const voice = speak(person.num, "slowly");
    while (engine.runs() === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    // The engine is running: the same agent's text send to the same person (same rate rows,
    // same conversation) goes through meanwhile.
    const text = await sendAgentMessage(
      deps,
      { agentId: agent.id },
      { to: person.num, type: "text", content: "meanwhile" },
    );
    expect(text.message.content).toBe("meanwhile");
    writeFileSync(engine.files.release, "");
    expect((await voice).message).toMatchObject({ type: "voice", transcript: "slowly" });
    expect(await stored()).toBe(2);
  });
});

describe("a surface with no recipient (a feed post)", () => {
  it("is charged as a message against the per-minute limit, not a per-recipient one", async () => {
    const { deps, agent } = await setup({
      LIMIT_MESSAGES_PER_MIN: "2",
      LIMIT_PER_RECIPIENT_PER_MIN: "1",
    });
    // Each post stores a row; the refused one's row is rolled back with its charge.
    const post = (text: string) =>
      runSend(deps, {
        agentId: agent.id,
        charge: "message",
        prepare: () => text,
        access: async () => ({ recipientId: null }),
        store: async (tx, prepared) => {
          await tx.insert(schema.posts).values({
            id: newId("pst"),
            authorId: agent.id,
            texts: [prepared],
            createdAt: deps.clock.now(),
          });
          return { result: prepared };
        },
      });
    expect(await codeOf(post("one"))).toBe("ok");
    expect(await codeOf(post("two"))).toBe("ok");
    expect(await codeOf(post("three"))).toBe("rate_limited");
    const stored = await deps.db
      .select({ texts: schema.posts.texts })
      .from(schema.posts)
      .where(eq(schema.posts.authorId, agent.id));
    expect(stored.flatMap((row) => row.texts).sort()).toEqual(["one", "two"]);
    expect((await getAgentUsage(deps, agent.id)).usage.messages).toBe(2);
  });
});

/**
 * How many statements the process sends Postgres while `run` runs: Bind messages of the
 * extended protocol and simple Query messages, read from what is written to sockets.
 */
async function statementsSent(run: () => Promise<unknown>): Promise<number> {
  const write = Socket.prototype.write;
  let statements = 0;
  Socket.prototype.write = function (this: Socket, ...args: Parameters<Socket["write"]>) {
    const [chunk] = args;
    if (Buffer.isBuffer(chunk))
      for (let at = 0; at + 5 <= chunk.length; at += 1 + chunk.readInt32BE(at + 1)) {
        const type = String.fromCharCode(chunk[at] ?? 0);
        if (type === "B" || type === "Q") statements++;
      }
    return write.apply(this, args);
  } as Socket["write"];
  try {
    await run();
  } finally {
    Socket.prototype.write = write;
  }
  return statements;
}

/** How many times the process writes to a socket while `run` runs (nothing else runs then). */
async function socketWrites(run: () => Promise<unknown>): Promise<number> {
  const write = Socket.prototype.write;
  let writes = 0;
  Socket.prototype.write = function (this: Socket, ...args: Parameters<Socket["write"]>) {
    writes++;
    return write.apply(this, args);
  } as Socket["write"];
  try {
    await run();
  } finally {
    Socket.prototype.write = write;
  }
  return writes;
}

/**
 * The fewest socket writes of `tries` sends (each made by `next`, after the wake-ups of the ones
 * before went out): a statement is prepared once per pool connection, on the first send that
 * lands on it, and that send writes more.
 */
async function fewestWrites(
  deps: CoreDeps,
  next: (i: number) => Promise<() => Promise<unknown>>,
  tries = 4,
): Promise<number> {
  let fewest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < tries; i++) {
    const send = await next(i);
    await wakeAfterCommit(deps.sql, []);
    fewest = Math.min(fewest, await socketWrites(send));
  }
  await wakeAfterCommit(deps.sql, []);
  return fewest;
}

describe("a send's statements go out together", () => {
  it("sends a text message to a person as one statement once it has sent to them", async () => {
    const { deps, agent, person } = await setup({ LIMIT_MESSAGES_PER_MIN: "1000" });
    const sendTo = (to: string) => () =>
      sendAgentMessage(deps, { agentId: agent.id }, { to, type: "text", content: "hi" });
    const send = sendTo(person.num);
    // The first send to a target: the access check; BEGIN with the charge and the message;
    // COMMIT.
    const firstSend = async () => {
      const other = await createUser(deps, {});
      await addContact(deps, other.id, agent.id, ["messages:write"]);
      return sendTo(other.num);
    };
    expect(await fewestWrites(deps, firstSend)).toBe(3);
    // Then the access guard, the charge and the message in one statement that commits on its
    // own (decision 0083).
    expect(await fewestWrites(deps, async () => send)).toBe(1);
    await wakeAfterCommit(deps.sql, []);
    expect(await statementsSent(send)).toBe(1);
    // The wake-ups go out after the send has answered, in a statement of their own that every
    // send committed meanwhile shares (decision 0077).
    expect(await socketWrites(() => wakeAfterCommit(deps.sql, []))).toBeGreaterThan(0);
  });

  it("a repeat send whose standing changed stores nothing, charges nothing, and is refused and counted in the classic order", async () => {
    const { deps, agent, person, conversationId } = await setup({});
    const stored = async () =>
      (
        await deps.db
          .select()
          .from(schema.messages)
          .where(eq(schema.messages.conversationId, conversationId))
      ).length;
    const send = (target: { to: string } | { conversationId: string }) =>
      sendAgentMessage(deps, { agentId: agent.id }, { ...target, type: "text", content: "hi" });
    expect(await codeOf(send({ to: person.num }))).toBe("ok");
    expect(await codeOf(send({ conversationId }))).toBe("ok");
    const before = await getAgentUsage(deps, agent.id);
    // Both standings are remembered and allow the send: the statement's guard sees the change.
    await setGrant(deps, person.id, agent.id, ["messages:read"]);
    expect(await codeOf(send({ to: person.num }))).toBe("scope_not_granted");
    await removeContact(deps, person.id, agent.id);
    expect(await codeOf(send({ conversationId }))).toBe("not_a_contact");
    const after = await getAgentUsage(deps, agent.id);
    expect(after.usage).toEqual({ ...before.usage, refused: before.usage.refused + 2 });
    expect(after.perMinute.messages.count).toBe(before.perMinute.messages.count);
    expect(await stored()).toBe(2);
  });

  it("a repeat send goes to whoever holds the number now", async () => {
    const { deps, agent, person } = await setup({});
    const number = person.num;
    const send = () =>
      sendAgentMessage(deps, { agentId: agent.id }, { to: number, type: "text", content: "hi" });
    const first = await send();
    expect((await send()).conversationId).toBe(first.conversationId); // as one statement
    // The number moves to someone else, who also added the agent.
    await deps.db
      .update(schema.users)
      .set({ num: `${number}x` })
      .where(eq(schema.users.id, person.id));
    const next = await createUser(deps, {});
    await deps.db.update(schema.users).set({ num: number }).where(eq(schema.users.id, next.id));
    const { conversationId } = await addContact(deps, next.id, agent.id, ["messages:write"]);
    const sent = await send();
    expect(sent.conversationId).toBe(conversationId);
    expect(sent.conversationId).not.toBe(first.conversationId);
  });

  it("a repeat send to a replies-only person is refused and counted once the window closed by the clock", async () => {
    const { deps, agent, person, conversationId } = await setup({});
    await setInitiation(deps, person.id, agent.id, "reply_only");
    await sendPersonMessage(deps, person.id, agent.id, { type: "text", content: "hello?" });
    const send = () =>
      sendAgentMessage(
        deps,
        { agentId: agent.id },
        { conversationId, type: "text", content: "hi" },
      );
    expect(await codeOf(send())).toBe("ok");
    t.clock.advance(24 * 3600_000 - 1000);
    expect(await codeOf(send())).toBe("ok"); // as one statement, the window still open
    const before = (await getAgentUsage(deps, agent.id)).usage;
    t.clock.advance(1000);
    // Nothing in the database changed: the remembered standing decided again refuses it.
    expect(await codeOf(send())).toBe("reply_window_closed");
    expect((await getAgentUsage(deps, agent.id)).usage).toEqual({
      ...before,
      refused: before.refused + 1,
    });
  });

  it("a repeat send at a per-minute limit is refused in the classic order, and its one statement changes nothing", async () => {
    const { deps, agent, person } = await setup({
      LIMIT_MESSAGES_PER_MIN: "1000",
      LIMIT_PER_RECIPIENT_PER_MIN: "3",
    });
    const send = () =>
      sendAgentMessage(
        deps,
        { agentId: agent.id },
        { to: person.num, type: "text", content: "hi" },
      );
    for (let i = 0; i < 3; i++) expect(await codeOf(send())).toBe("ok");
    expect(await codeOf(send())).toBe("conversation_rate_limited");
    const usage = await getAgentUsage(deps, agent.id);
    expect(usage.usage.messages).toBe(3);
    expect(usage.perMinute.messages.count).toBe(3);
  });

  it("a repeat send that reaches a daily ceiling pauses the agent, as the classic order does", async () => {
    const { deps, agent, person } = await setup({ LIMIT_DAILY_MESSAGES: "3" });
    const send = () =>
      sendAgentMessage(
        deps,
        { agentId: agent.id },
        { to: person.num, type: "text", content: "hi" },
      );
    expect(await codeOf(send())).toBe("ok");
    expect(await codeOf(send())).toBe("ok");
    const paused = async () =>
      (
        await deps.db
          .select({ reason: schema.agents.pauseReason })
          .from(schema.agents)
          .where(eq(schema.agents.id, agent.id))
      )[0]?.reason;
    expect(await paused()).toBeNull();
    expect(await codeOf(send())).toBe("ok"); // the third: at the ceiling
    expect(await paused()).toBe("ceiling:messages");
    expect((await getAgentUsage(deps, agent.id)).usage.messages).toBe(3);
  });

  it("the guard rolls back the whole statement it is part of", async () => {
    const { deps, agent } = await setup({});
    const count = async () =>
      (
        await deps.sql`select count(*)::int as n from rate_counters where key = ${`guard:${agent.id}`}`
      )[0]?.n;
    const statement = (ok: boolean) => deps.sql`with hit as (
        insert into rate_counters (key, window_start, count) values (${`guard:${agent.id}`}, now(), 1)
        returning count
      ) select switchboard_expect(${ok}, 'test') from hit`;
    await statement(true);
    expect(await count()).toBe(1);
    const refused = await statement(false).catch((error: { code?: string }) => error.code);
    expect(refused).toBe("SB001");
    expect(await count()).toBe(1);
  });

  it("a message to a person with no push device costs no more statements, and no job", async () => {
    const { deps, agent, person } = await setup({ LIMIT_MESSAGES_PER_MIN: "1000" });
    const send = () =>
      sendAgentMessage(
        deps,
        { agentId: agent.id },
        { to: person.num, type: "text", content: "hi" },
      );
    for (let i = 0; i < 5; i++) await send();
    const jobs = async () =>
      (
        await deps.sql`select count(*)::int as n from graphile_worker._private_jobs
          where payload->>'userId' = ${person.id}`
      )[0]?.n;
    const before = await jobs();
    // One statement: the access guard, the charge, the message (its push job in it). The sends
    // before it woke the person's apps first (those wake-ups wait up to 20 ms for company).
    await wakeAfterCommit(deps.sql, []);
    expect(await statementsSent(send)).toBe(1);
    expect(await jobs()).toBe(before);
    // With a device the same statements enqueue the push.
    await deps.db.insert(schema.pushSubscriptions).values({
      userId: person.id,
      endpoint: "https://push.example.com/x",
      p256dh: "k",
      auth: "a",
      deviceLabel: "Test",
      createdAt: deps.clock.now(),
    });
    await wakeAfterCommit(deps.sql, []);
    expect(await statementsSent(send)).toBe(1);
    expect(await jobs()).toBe((before ?? 0) + 1);
  });

  it("stores an Idempotency-Key's answer in the send's transaction, one write before COMMIT", async () => {
    const { deps, agent, person } = await setup({ LIMIT_MESSAGES_PER_MIN: "1000" });
    let n = 0;
    const keyedSend = async () => {
      n += 1;
      const claim = await claimIdempotencyKey(
        deps,
        { ownerId: agent.id, key: `w${n}`, fingerprint: "f" },
        201,
      );
      if (!("write" in claim)) throw new Error("not claimed");
      const keyed = { ...deps, idempotentWrite: claim.write };
      return {
        claim: claim.write,
        send: () =>
          sendAgentMessage(
            keyed,
            { agentId: agent.id },
            { to: person.num, type: "text", content: "hi" },
          ),
      };
    };
    await (await keyedSend()).send();
    let claim: { sealed?: string } = {};
    // A keyed send takes the classic order (its answer needs the message's row first, decision
    // 0083): the access check; BEGIN with the charge and the message; the answer; COMMIT. The
    // claim before it is the pipeline's.
    const writes = await fewestWrites(deps, async () => {
      const keyed = await keyedSend();
      claim = keyed.claim;
      return keyed.send;
    });
    expect(writes).toBe(4);
    expect(claim.sealed).toContain('"content":"hi"');
  });
});
