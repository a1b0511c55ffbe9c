import { execFileSync } from "node:child_process";
import {
  addContact,
  createAgent,
  createUser,
  listPersonMessages,
  readEvents,
  sendPersonMessage,
  setMessageTranscript,
} from "@switchboard/core";
import { createTestDeps, dataUrl, oggBytes } from "@switchboard/core/testing";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startJobRunner } from "./runner";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

/** A voice note as a person's phone would send it: speech from espeak-ng, as a data URL. */
function spokenNote(text: string): string {
  const wav = execFileSync("espeak-ng", ["-s", "140", "--stdout", text]);
  return `data:audio/wav;base64,${wav.toString("base64")}`;
}

async function personAndAgent(deps = t.deps) {
  const owner = await createUser(deps, {});
  const person = await createUser(deps, {});
  const agent = await createAgent(deps, {
    ownerId: owner.id,
    displayName: "Listener",
    requestedScopes: ["messages:read", "messages:write"],
  });
  await addContact(deps, person.id, agent.id, ["messages:read", "messages:write"]);
  return { person, agent };
}

async function eventsOf(agentId: string, deps = t.deps) {
  return (await readEvents(deps, agentId, 0, 100)).events;
}

async function waitFor<T>(read: () => Promise<T | undefined>, seconds: number): Promise<T> {
  for (let i = 0; i < seconds * 10; i++) {
    const found = await read();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing after ${seconds} s`);
}

it("a person's voice note gets its transcript from pocketsphinx in a job: message.transcript after message.received", async () => {
  const { person, agent } = await personAndAgent();
  const { message } = await sendPersonMessage(t.deps, person.id, agent.id, {
    type: "voice",
    audioData: spokenNote("Hello, please book a table for two people tonight."),
  });
  // The job committed with the note.
  const [queued] = await t.deps.db.execute<{ payload: { messageId: string } }>(
    sql`select j.payload from graphile_worker._private_jobs j
      join graphile_worker._private_tasks t on t.id = j.task_id
      where t.identifier = 'message_transcribe'`,
  );
  expect(queued?.payload).toEqual({ messageId: message.id });

  const runner = await startJobRunner(t.deps, t.config.DATABASE_URL as string);
  try {
    const transcript = await waitFor(
      async () => (await eventsOf(agent.id)).find((event) => event.type === "message.transcript"),
      60,
    );
    const events = await eventsOf(agent.id);
    const received = events.find((event) => event.type === "message.received");
    expect(received).toBeDefined();
    expect(transcript.seq).toBeGreaterThan(received?.seq ?? Number.POSITIVE_INFINITY);
    expect(transcript.payload).toMatchObject({
      messageId: message.id,
      conversationId: message.conversationId,
      transcript: expect.stringMatching(/\w/),
    });
    // The note carries it too (what the console and history show).
    const [stored] = await t.deps.db.execute<{ transcript: string | null }>(
      sql`select transcript from messages where id = ${message.id}`,
    );
    expect(stored?.transcript).toBe((transcript.payload as { transcript: string }).transcript);
    // The console's chat (tRPC chats.messages reads this) carries it under the note.
    const page = await listPersonMessages(t.deps, person.id, agent.id);
    expect(page.messages.find((m) => m.id === message.id)?.transcript).toBe(stored?.transcript);
  } finally {
    await runner.stop();
  }
}, 90_000);

it("an engine that keeps failing is retried, then the job gives up: message.transcript with transcript null", async () => {
  const failing = await createTestDeps({ env: { STT_COMMAND: "node -e process.exit(3)" } });
  try {
    const { person, agent } = await personAndAgent(failing.deps);
    const { message } = await sendPersonMessage(failing.deps, person.id, agent.id, {
      type: "voice",
      audioData: spokenNote("Nobody will hear this."),
    });
    const runner = await startJobRunner(failing.deps, failing.config.DATABASE_URL as string);
    try {
      // The queue's backoff between tries is seconds long: bring each retry forward.
      const hurry = setInterval(() => {
        failing.deps.db
          .execute(sql`update graphile_worker._private_jobs set run_at = now()
            where locked_at is null and run_at > now()`)
          .catch(() => {});
      }, 200);
      const gaveUp = await waitFor(async () => {
        const events = await eventsOf(agent.id, failing.deps);
        return events.find((event) => event.type === "message.transcript");
      }, 60).finally(() => clearInterval(hurry));
      expect(gaveUp.payload).toEqual({
        conversationId: message.conversationId,
        messageId: message.id,
        from: expect.objectContaining({ id: person.id }),
        transcript: null,
      });
      // The queue completes the job once the task has returned, a moment after the event.
      const left = await waitFor(async () => {
        const [job] = await failing.deps.db.execute<{ n: number }>(
          sql`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'message_transcribe'`,
        );
        return job?.n === 0 ? job.n : undefined;
      }, 10);
      expect(left).toBe(0);
    } finally {
      await runner.stop();
    }
    // The CLI's `transcript` command still sets one (an external engine), and fires again.
    await setMessageTranscript(failing.deps, message.id, "typed by hand");
    const transcripts = (await eventsOf(agent.id, failing.deps)).filter(
      (event) => event.type === "message.transcript",
    );
    expect(
      transcripts.map((event) => (event.payload as { transcript: unknown }).transcript),
    ).toEqual([null, "typed by hand"]);
  } finally {
    await failing.close();
  }
}, 90_000);

it("a worker with no engine (no ffmpeg, no pocketsphinx, no STT_COMMAND) still ends the job with message.transcript null", async () => {
  const deaf = await createTestDeps({ env: { PATH: "/nonexistent" } });
  try {
    const { person, agent } = await personAndAgent(deaf.deps);
    const { message } = await sendPersonMessage(deaf.deps, person.id, agent.id, {
      type: "voice",
      audioData: dataUrl("audio/ogg", oggBytes()),
      audioDuration: "2",
    });
    const runner = await startJobRunner(deaf.deps, deaf.config.DATABASE_URL as string);
    try {
      // At once, on the first try: retrying cannot install an engine.
      const ended = await waitFor(async () => {
        const events = await eventsOf(agent.id, deaf.deps);
        return events.find((event) => event.type === "message.transcript");
      }, 30);
      expect(ended.payload).toEqual({
        conversationId: message.conversationId,
        messageId: message.id,
        from: expect.objectContaining({ id: person.id }),
        transcript: null,
      });
      const received = (await eventsOf(agent.id, deaf.deps)).find(
        (event) => event.type === "message.received",
      );
      expect(ended.seq).toBeGreaterThan(received?.seq ?? Number.POSITIVE_INFINITY);
    } finally {
      await runner.stop();
    }
  } finally {
    await deaf.close();
  }
});
