import { execFile } from "node:child_process";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { sendPersonMessage } from "@switchboard/core";
import { deps, newContact } from "../support/fixtures";
import { repoRoot } from "../support/processes";
import { expect, test } from "../support/test";
import { startWebhookReceiver } from "../support/webhook-receiver";

/**
 * The SDK as a stranger gets it: the real build, `npm pack`, the tarball installed with `ws` into
 * an empty folder outside the workspace, and a plain Node ESM script there (no tsx, no workspace
 * resolution) talking to the running service: getMe, updates(), a real signed delivery verified,
 * the stream over `ws` with a streamed reply, and a typed refusal.
 */
const run = promisify(execFile);
const baseUrl = `http://localhost:${process.env.E2E_PORT}/api`;
const wsUrl = `ws://localhost:${process.env.E2E_WS_PORT}`;

/** The child's environment without npm's (npx sets npm_config_local_prefix to the workspace). */
const cleanEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)),
) as NodeJS.ProcessEnv;

const consumerScript = `import { readFileSync } from "node:fs";
import {
  isSwitchboardError,
  Switchboard,
  verifyWebhook,
  WebhookVerificationError,
} from "@switchboard/sdk";

setTimeout(() => {
  console.error("consumer timed out");
  process.exit(2);
}, 30_000).unref();

const { token, baseUrl, wsUrl, delivery } = JSON.parse(readFileSync("input.json", "utf8"));
const client = new Switchboard({ token, baseUrl, wsUrl, maxRetries: 0 });
const me = await client.getMe();

const seen = [];
for await (const event of client.updates({ afterSeq: 0, wait: 1 })) {
  seen.push(event.type);
  if (event.type === "message.received") break;
}
const [received] = (await client.pollUpdates({ afterSeq: 0 })).events.filter(
  (event) => event.type === "message.received",
);

const verified = verifyWebhook(delivery.body, delivery.signature, delivery.secret);
const tampered = (() => {
  try {
    verifyWebhook(delivery.body.replace("pack me", "pack you"), delivery.signature, delivery.secret);
    return "accepted";
  } catch (error) {
    return error instanceof WebhookVerificationError ? error.reason : String(error);
  }
})();

// Events the stream replays may arrive with its hello, before a listener can be added here, so
// the reply goes to the conversation the long-poll named.
const stream = await client.connect({ afterSeq: 0 });
const reply = await stream.streamReply(received.payload.conversationId);
for (const word of ["from ", "the ", "tarball"]) reply.write(word);
const stored = await reply.end();
await stream.close();

const refusal = await client
  .sendMessage({ to: "999-999-998", type: "text", content: "nobody" })
  .catch((error) => error);

console.log(
  JSON.stringify({
    resolved: import.meta.resolve("@switchboard/sdk"),
    me: me.id,
    seen,
    receivedId: received?.id,
    verified: { id: verified.id, type: verified.type },
    tampered,
    stored: { id: stored.id, content: stored.content },
    refusal: isSwitchboardError(refusal) ? [refusal.status, refusal.code] : String(refusal),
  }),
);
`;

let dir: string;
test.afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("the packed SDK installs into an empty folder and works there on plain Node", async ({
  request,
}) => {
  test.setTimeout(120_000);
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), "sdk-pack-")));
  const dist = path.join(dir, "dist");
  const consumer = path.join(dir, "consumer");

  // The publishable package, built as `npm run build -w @switchboard/sdk` builds it, then packed.
  await run(process.execPath, ["--import", "tsx", "scripts/build.ts", dist], {
    cwd: path.join(repoRoot, "packages/sdk"),
    env: cleanEnv,
  });
  const packed = await run("npm", ["pack", "--json", "--pack-destination", dir], {
    cwd: dist,
    env: cleanEnv,
  });
  const [{ filename, files }] = JSON.parse(packed.stdout) as [
    { filename: string; files: { path: string }[] },
  ];
  expect(files.map((f) => f.path).sort()).toEqual([
    "README.md",
    "index.d.ts",
    "index.js",
    "package.json",
  ]);

  // An empty project outside the workspace: nothing but the tarball and ws (and its peer, zod).
  mkdirSync(consumer);
  writeFileSync(
    path.join(consumer, "package.json"),
    JSON.stringify({ name: "sdk-consumer", private: true, type: "module" }),
  );
  writeFileSync(path.join(consumer, "consumer.mjs"), consumerScript);
  await run(
    "npm",
    ["install", path.join(dir, filename), "ws@^8", "--no-audit", "--no-fund", "--prefer-offline"],
    { cwd: consumer, env: cleanEnv },
  );
  const installed = path.join(consumer, "node_modules/@switchboard/sdk");
  expect(lstatSync(installed).isSymbolicLink()).toBe(false);
  expect(JSON.parse(readFileSync(path.join(installed, "package.json"), "utf8")).dependencies).toBe(
    undefined,
  );

  // A person's message: an event for updates() and the stream, and a signed webhook delivery.
  const receiver = await startWebhookReceiver();
  try {
    const { token, auth, agent, person, conversationId } = await newContact();
    const { secret } = await (
      await request.put("/api/agent/v1/webhook", { headers: auth, data: { url: receiver.url } })
    ).json();
    await sendPersonMessage(deps(), person.id, agent.id, { type: "text", content: "pack me" });
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const [got] = receiver.received;
    const delivery = { body: got?.body, signature: got?.headers["x-svc-signature"], secret };
    writeFileSync(
      path.join(consumer, "input.json"),
      JSON.stringify({ token, baseUrl, wsUrl, delivery }),
    );

    const { stdout } = await run(process.execPath, ["consumer.mjs"], {
      cwd: consumer,
      env: cleanEnv,
      timeout: 45_000,
    }).catch((error: { stdout: string; stderr: string }) => {
      throw new Error(`consumer failed: ${error.stderr || error.stdout}`);
    });
    const out = JSON.parse(stdout);
    expect(out.resolved).toBe(`file://${installed}/index.js`);
    expect(out.me).toBe(agent.id);
    expect(out.seen.at(-1)).toBe("message.received");
    expect(out.receivedId).toMatch(/^evt_/);
    expect(out.verified).toEqual({ id: out.receivedId, type: "message.received" });
    expect(out.tampered).toBe("no_matching_signature");
    expect(out.stored.content).toBe("from the tarball");
    expect(out.refusal).toEqual([404, "not_found"]);

    const history = await (
      await request.get(`/api/agent/v1/conversations/${conversationId}/messages`, {
        headers: auth,
      })
    ).json();
    expect(history.messages.map((m: { id: string; content: string }) => m.content)).toEqual([
      "pack me",
      "from the tarball",
    ]);
    expect(history.messages[1].id).toBe(out.stored.id);
  } finally {
    await receiver.close();
  }
});
