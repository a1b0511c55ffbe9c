import type { AgentScope } from "@switchboard/contract";
import {
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
