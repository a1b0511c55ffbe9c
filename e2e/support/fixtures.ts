import type { AgentScope } from "@switchboard/contract";
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

/**
 * Test data is made through core, the same functions the CLI and console call; every test makes
 * its own users and agents, so tests never share state.
 */
let shared: CoreDeps | undefined;
export function deps(): CoreDeps {
  shared ??= createDeps(loadConfig({ DATABASE_URL: process.env.E2E_DATABASE_URL }), {
    poolSize: 3,
  }).deps;
  return shared;
}

export async function newAgent(options: { scopes?: AgentScope[]; name?: string } = {}) {
  const owner = await createUser(deps(), { displayName: "Owner" });
  const agent = await createAgent(deps(), {
    ownerId: owner.id,
    displayName: options.name ?? "Test Agent",
    requestedScopes: options.scopes ?? ["messages:read", "messages:write"],
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
