import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { ops } from "@switchboard/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildSdk } from "../scripts/build";

/**
 * The published package, as a consumer outside the monorepo gets it: dist/ installed in a fresh
 * project next to only zod (for types) and @types/node, type-checked with a strict tsc and run.
 */
const repo = path.resolve(import.meta.dirname, "../../..");
const require = createRequire(import.meta.url);
let dir: string;
let dist: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "sdk-consumer-"));
  dist = path.join(dir, "node_modules/@switchboard/sdk");
  await buildSdk(dist);
  mkdirSync(path.join(dir, "node_modules/@types"), { recursive: true });
  symlinkSync(path.join(repo, "node_modules/zod"), path.join(dir, "node_modules/zod"));
  symlinkSync(
    path.join(repo, "node_modules/@types/node"),
    path.join(dir, "node_modules/@types/node"),
  );
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the built package", () => {
  it("is one ESM file with the registry as data: no zod, no contract, no monorepo paths", () => {
    const js = readFileSync(path.join(dist, "index.js"), "utf8");
    expect(js).not.toMatch(/from ["']zod["']|@switchboard\/|import\(["']zod/);
    for (const id of Object.keys(ops)) expect(js).toContain(`"${id}"`);
    const manifest = JSON.parse(readFileSync(path.join(dist, "package.json"), "utf8"));
    expect(manifest).toMatchObject({
      name: "@switchboard/sdk",
      type: "module",
      exports: { ".": { types: "./index.d.ts", default: "./index.js" } },
      peerDependencies: { zod: expect.any(String), ws: expect.any(String) },
      peerDependenciesMeta: { ws: { optional: true } },
    });
    expect(manifest.dependencies).toBeUndefined();
    const dts = readFileSync(path.join(dist, "index.d.ts"), "utf8");
    expect(dts).not.toContain("@switchboard/");
  });

  it("type-checks a strict consumer: typed inputs, results, events and error codes", async () => {
    writeFileSync(
      path.join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          types: ["node"],
          skipLibCheck: false,
        },
        files: ["consumer.ts"],
      }),
    );
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
    writeFileSync(
      path.join(dir, "consumer.ts"),
      `import {
  type AgentEvent,
  type AgentMessage,
  isSwitchboardError,
  Switchboard,
  SwitchboardDeveloper,
  verifyWebhook,
} from "@switchboard/sdk";

const client = new Switchboard({ token: "sbat_x" });
export async function typed(): Promise<void> {
  const sent = await client.sendMessage({ to: "412-555-019", type: "text", content: "hi" });
  const message: AgentMessage = sent.message;
  const page = await client.listMessages({ conversationId: "cnv_1", limit: 20 });
  const first: AgentMessage | undefined = page.messages[0];
  const same = await client.call("listMessages", { conversationId: "cnv_1", limit: "20" });
  await client.listConversations();
  await client.markRead({ conversationId: "cnv_1", messageId: message.id });
  // @ts-expect-error conversationId is required
  await client.listMessages({});
  // @ts-expect-error not an Agent API operation
  await client.call("postSelfMessage", { content: "x" });
  const audio: Response = await client.getMessageAudio({ messageId: "msg_1" });
  for await (const event of client.updates({ afterSeq: "latest" })) {
    if (event.type === "message.received" && event.payload.message) {
      const text: string = event.payload.message.content;
      void text;
    }
  }
  try {
    await client.proposeAction({ conversationId: "cnv_1", title: "t", kind: "x" });
  } catch (error) {
    if (isSwitchboardError(error, "proposeAction") && error.code === "too_many_pending") return;
    // @ts-expect-error not a code proposeAction answers
    if (isSwitchboardError(error, "proposeAction") && error.code === "no_audio") return;
  }
  const stream = await client.connect();
  stream.on("event", (event: AgentEvent) => void event.seq);
  const reply = await stream.streamReply({ to: "412-555-019" });
  reply.write("hello");
  const stored: AgentMessage = await reply.end();
  const dev = new SwitchboardDeveloper({ key: "sbdk_x" });
  const posted = await dev.postSelfMessage({ content: "hi" });
  void [first, same, audio, stored, posted.message.content];
}
export const event: AgentEvent = verifyWebhook("{}", "t=1,v1=00", "whsec_x");
`,
    );
    const tsc = require.resolve("typescript/bin/tsc");
    const run = await promisify(execFile)(process.execPath, [tsc, "-p", dir]).catch(
      (error: { stdout: string }) => error,
    );
    expect(run.stdout).toBe("");
  }, 120_000);

  it("runs on plain Node: the methods come from the inlined registry", async () => {
    writeFileSync(
      path.join(dir, "run.mjs"),
      `import { Switchboard, SwitchboardError } from "@switchboard/sdk";
const client = new Switchboard({ token: "sbat_x", baseUrl: "http://127.0.0.1:9/api", maxRetries: 0 });
const methods = ${JSON.stringify(Object.keys(ops).filter((id) => ops[id as keyof typeof ops].surface === "agent"))}.filter((id) => typeof client[id] !== "function");
const error = await client.getMe().catch((e) => e);
console.log(JSON.stringify({ methods, code: error instanceof SwitchboardError ? error.code : String(error), ws: client.wsUrl }));
`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, [path.join(dir, "run.mjs")]);
    expect(JSON.parse(stdout)).toEqual({
      methods: [],
      code: "network_error",
      ws: "ws://127.0.0.1:10",
    });
  }, 30_000); // a Node process of its own: seconds when the machine is busy
});
