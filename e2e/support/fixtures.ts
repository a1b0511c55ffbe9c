import type { APIRequestContext } from "@playwright/test";
import type { AgentScope, RequestPrivacy } from "@switchboard/contract";
import {
  addContact,
  type CoreDeps,
  createAgent,
  createDeps,
  createDeveloperKey,
  createUser,
  loadConfig,
  mintAgentToken,
} from "@switchboard/core";
import { TEST_KEYS } from "@switchboard/core/testing";

/**
 * Test data is made through core, the same functions the CLI and console call; every test makes
 * its own users and agents, so tests never share state.
 */
let shared: CoreDeps | undefined;
export function deps(): CoreDeps {
  shared ??= createDeps(loadConfig({ ...TEST_KEYS, DATABASE_URL: process.env.E2E_DATABASE_URL }), {
    poolSize: 3,
  }).deps;
  return shared;
}

export async function newAgent(
  options: { scopes?: AgentScope[]; name?: string; privacy?: RequestPrivacy } = {},
) {
  const owner = await createUser(deps(), { displayName: "Owner" });
  const agent = await createAgent(deps(), {
    ownerId: owner.id,
    displayName: options.name ?? "Test Agent",
    requestedScopes: options.scopes ?? ["messages:read", "messages:write"],
    requestPrivacy: options.privacy,
  });
  const { token } = await mintAgentToken(deps(), agent.id);
  return { owner, agent, token, auth: { Authorization: `Bearer agent:${token}` } };
}

export async function newDeveloper(options: { scopes?: string[] } = {}) {
  const user = await createUser(deps(), { displayName: "Dev" });
  const { key } = await createDeveloperKey(deps(), user.id, {
    scopes: options.scopes ?? ["self-chat:write"],
  });
  return { user, key, auth: { Authorization: `Bearer dev:${key}` } };
}

/** An agent and a person who added it with the given grant (defaults: read and write messages). */
export async function newContact(options: { grant?: AgentScope[]; scopes?: AgentScope[] } = {}) {
  const setup = await newAgent({
    scopes: options.scopes ?? ["messages:read", "messages:write", "tasks:read"],
  });
  const person = await createUser(deps(), { displayName: "Pat Person" });
  const { conversationId } = await addContact(
    deps(),
    person.id,
    setup.agent.id,
    options.grant ?? ["messages:read", "messages:write"],
  );
  return { ...setup, person, conversationId };
}

/** A tiny valid WAV: 44-byte header and a few samples of silence. */
export function wavBytes(samples = 800): Buffer {
  const data = Buffer.alloc(samples * 2);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVE", 8);
  header.write("fmt ", 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

export const PNG_1X1 = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

/** One Ogg page carrying an OpusHead packet: what an ogg/opus voice note starts with. */
export function oggBytes(): Buffer {
  const head = Buffer.from("OpusHead\x01\x01\x38\x01\x80\xbb\x00\x00\x00\x00\x00", "latin1");
  const page = Buffer.alloc(27);
  page.write("OggS", 0, "latin1");
  page[5] = 0x02;
  page.writeUInt32LE(1, 14);
  page[26] = 1;
  return Buffer.concat([page, Buffer.from([head.length]), head]);
}

/** An ID3 tag header and one MPEG-1 Layer III frame: how an mp3 starts. */
export const mp3Bytes = () =>
  Buffer.concat([
    Buffer.from("ID3\x04\x00\x00\x00\x00\x00\x00", "latin1"),
    Buffer.from([0xff, 0xfb, 0x90, 0x64]),
    Buffer.alloc(413),
  ]);

/** An EBML header: how a webm file starts. */
export const webmBytes = () =>
  Buffer.concat([
    Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01]),
    Buffer.from("webm"),
  ]);

export const dataUrl = (mime: string, bytes: Buffer) =>
  `data:${mime};base64,${bytes.toString("base64")}`;

/** The Agent API under one agent's token, for specs that make many calls. */
export function agentApi(request: APIRequestContext, auth: Record<string, string>) {
  const url = (path: string) => `/api/agent/v1${path}`;
  return {
    get: (path: string, headers: Record<string, string> = {}) =>
      request.get(url(path), { headers: { ...auth, ...headers } }),
    post: (path: string, data?: unknown) =>
      request.post(url(path), { headers: auth, ...(data !== undefined && { data }) }),
    delete: (path: string) => request.delete(url(path), { headers: auth }),
    send: (data: Record<string, unknown>) =>
      request.post(url("/messages"), { headers: auth, data }),
  };
}
