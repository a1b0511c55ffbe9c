import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { decideAction, sendPersonMessage } from "@switchboard/core";
import { Switchboard } from "@switchboard/sdk";
import { deps, newContact } from "../support/fixtures";
import { freePort, type RunningProcess, repoRoot, run } from "../support/processes";
import { expect, test } from "../support/test";

/**
 * Each example agent, started with the one command its README gives (`npm run -s -w examples
 * …`), against the service the run started, answering a person as in the quickstart.
 */
const apiUrl = `http://localhost:${process.env.E2E_PORT}/api`;
const wsUrl = `ws://localhost:${process.env.E2E_WS_PORT}`;
const started: RunningProcess[] = [];
test.afterEach(async () => {
  await Promise.all(started.splice(0).map((process) => process.stop()));
});

function example(name: "echo" | "webhook" | "tasks", env: Record<string, string>) {
  const running = run("npm", ["run", "-s", "-w", "examples", name], {
    SWITCHBOARD_URL: apiUrl,
    SWITCHBOARD_WS_URL: wsUrl,
    ...env,
  });
  started.push(running);
  return running;
}

/** The agent's side of the conversation, until a message matches (what the person sees). */
async function reply(client: Switchboard, conversationId: string, pattern: RegExp) {
  let found: string | undefined;
  await expect
    .poll(
      async () => {
        const { messages } = await client.listMessages({ conversationId, limit: 100 });
        found = messages.find((m) => m.senderId !== undefined && pattern.test(m.content))?.content;
        return found;
      },
      { timeout: 30_000 },
    )
    .toBeDefined();
  return found as string;
}

test("the echo agent answers by long-poll", async () => {
  test.setTimeout(90_000);
  const { token, agent, person, conversationId } = await newContact();
  const client = new Switchboard({ token, baseUrl: apiUrl });
  const echo = example("echo", { SWITCHBOARD_TOKEN: token });
  await echo.waitFor(/is listening by long-poll after seq \d+/);
  const { message } = await sendPersonMessage(deps(), person.id, agent.id, {
    type: "text",
    content: "hello echo",
  });
  expect(await reply(client, conversationId, /^Echo: hello echo$/)).toBe("Echo: hello echo");
  const { messages } = await client.listMessages({ conversationId });
  expect(messages.at(-1)).toMatchObject({ senderId: agent.id, replyToId: message.id });
  await echo.waitFor(/echoed "hello echo" to \d{3}-\d{3}-\d{3}/);
});

test("the webhook agent verifies deliveries and replies; a forged one is refused", async () => {
  test.setTimeout(90_000);
  const { token, agent, person, conversationId } = await newContact();
  const client = new Switchboard({ token, baseUrl: apiUrl });
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/webhook`;
  const { secret } = await client.putWebhook({ url });
  const hook = example("webhook", {
    SWITCHBOARD_TOKEN: token,
    SWITCHBOARD_WEBHOOK_SECRET: secret,
    WEBHOOK_AGENT_PORT: String(port),
    // The service's variable, exported as for `npm start`: taken, so the example must not use it.
    PORT: process.env.E2E_PORT as string,
  });
  await hook.waitFor(/webhook agent on http:\/\/localhost:\d+\/webhook/);

  const forged = await fetch(url, {
    method: "POST",
    headers: { "X-Svc-Signature": `t=${Math.floor(Date.now() / 1000)},v1=${"0".repeat(64)}` },
    body: JSON.stringify({ id: "evt_forged", type: "message.received" }),
  });
  expect(forged.status).toBe(400);
  await hook.waitFor(/refused a delivery: no_matching_signature/);

  await sendPersonMessage(deps(), person.id, agent.id, { type: "text", content: "via hook" });
  expect(await reply(client, conversationId, /arrived by webhook/)).toBe(
    'Got it, Pat Person: "via hook" arrived by webhook.',
  );
  await hook.waitFor(/message\.received evt_\w+ \(seq \d+\)/);
});

test("the task agent streams its answer, proposes create_task and acts on the approval; hears task.due", async () => {
  test.setTimeout(120_000);
  const scopes = ["messages:read", "messages:write", "tasks:read", "tasks:write"] as const;
  const { token, agent, person, conversationId } = await newContact({
    scopes: [...scopes],
    grant: [...scopes],
  });
  const client = new Switchboard({ token, baseUrl: apiUrl });
  const tasks = example("tasks", { SWITCHBOARD_TOKEN: token });
  await tasks.waitFor(/is connected to the stream after seq \d+/);

  await sendPersonMessage(deps(), person.id, agent.id, {
    type: "text",
    content: "water the plants",
  });
  await reply(client, conversationId, /^Shall I add "water the plants" to your tasks\?/);
  const proposed = await tasks.waitFor(/proposed act_\w+/);
  const actionId = proposed.match(/act_\w+/)?.[0] as string;
  expect(await client.getAction({ actionId })).toMatchObject({
    action: { skill: "create_task", state: "pending", payload: { title: "water the plants" } },
  });

  // The person approves the card, as in the console.
  await decideAction(deps(), { userRef: person.id, actionId, approve: true });
  const done = await reply(client, conversationId, /^Done: "water the plants" is on your list/);
  const { tasks: list } = await client.listTasks({ conversationId });
  expect(done).toContain(list.find((task) => task.title === "water the plants")?.id);

  // `switchboard trigger task.due` makes one of the person's tasks come due (the worker's timer).
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      "apps/cli/bin/switchboard.js",
      "trigger",
      "task.due",
      "--agent",
      agent.num,
      "--from",
      person.num,
    ],
    { cwd: repoRoot, env: { ...process.env, DATABASE_URL: process.env.E2E_DATABASE_URL } },
  );
  expect(JSON.parse(stdout)).toMatchObject({
    triggered: "task.due",
    events: [{ type: "task.due" }],
  });
  await reply(client, conversationId, /^⏰ "A test task from switchboard trigger" is due now\.$/);
});

test("an example says in one line when the service is not there or refuses the token", async () => {
  const runExample = (env: Record<string, string>) =>
    promisify(execFile)("npm", ["run", "-s", "-w", "examples", "echo"], {
      cwd: repoRoot,
      env: { ...process.env, SWITCHBOARD_DATA_DIR: "/nonexistent", ...env },
    }).then(
      () => ({ code: 0, stderr: "" }),
      (error: { code: number; stderr: string }) => error,
    );
  const away = await runExample({
    SWITCHBOARD_TOKEN: "sbat_x",
    SWITCHBOARD_URL: `http://127.0.0.1:${await freePort()}/api`,
  });
  expect(away.code).toBe(1);
  expect(away.stderr.trim().split("\n")).toEqual([
    expect.stringMatching(/^Switchboard is not reachable at http:\/\/127\.0\.0\.1:\d+\/api/),
  ]);
  const refused = await runExample({ SWITCHBOARD_TOKEN: "sbat_nope", SWITCHBOARD_URL: apiUrl });
  expect(refused.code).toBe(1);
  expect(refused.stderr.trim().split("\n")).toEqual([
    expect.stringMatching(/refused the token \(unauthorized\)/),
  ]);
});
