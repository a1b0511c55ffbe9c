import { ensureWebBuild } from "@switchboard/cli/build";
import { startService } from "@switchboard/cli/service";
import {
  addContact,
  type CoreDeps,
  createAgent,
  createUser,
  mintAgentToken,
} from "@switchboard/core";
import { TEST_KEYS } from "@switchboard/core/testing";
import type autocannon from "autocannon";
import { freePort } from "./worker-process";

/** Limits raised so that every answer under load is a real 2xx, not a 429. */
export const raisedLimits = {
  // The service never makes its own keys (decision 0063): a benchmark passes them.
  ...TEST_KEYS,
  LIMIT_REQUESTS_PER_MIN: "100000000",
  LIMIT_MESSAGES_PER_MIN: "100000000",
  LIMIT_PER_RECIPIENT_PER_MIN: "100000000",
  LIMIT_DAILY_MESSAGES: "100000000",
  LONGPOLL_MAX_PARKED: "1000",
};

/**
 * The service started the way `npm start` starts it (web + worker), with raised limits and
 * `env` on top. BENCH_CPU_PROF_DIR=dir: both processes write a V8 CPU profile there when they stop.
 */
export async function startBenchService(databaseUrl: string, env: Record<string, string> = {}) {
  ensureWebBuild((line) => console.error(line));
  const port = await freePort();
  const profileDir = process.env.BENCH_CPU_PROF_DIR;
  return startService({
    databaseUrl,
    port,
    wsPort: await freePort(),
    env: { ...raisedLimits, LOG_LEVEL: "warn", ...env },
    ...(profileDir && { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${profileDir}`] }),
    output: "ignore",
  });
}

/** `count` agents, each added by its own person with messages:read/write, and its token. */
export async function sendingContacts(deps: CoreDeps, count: number) {
  const owner = await createUser(deps, {});
  const contacts = [];
  for (let i = 0; i < count; i++) {
    const agent = await createAgent(deps, {
      ownerId: owner.id,
      displayName: `Bench ${i}`,
      requestedScopes: ["messages:read", "messages:write"],
    });
    const person = await createUser(deps, { displayName: `Person ${i}` });
    const { conversationId } = await addContact(deps, person.id, agent.id, [
      "messages:read",
      "messages:write",
    ]);
    const { token } = await mintAgentToken(deps, agent.id);
    contacts.push({ agent, person, conversationId, auth: `Bearer agent:${token}` });
  }
  return contacts;
}

type Contact = Awaited<ReturnType<typeof sendingContacts>>[number];

/** A text `POST /messages` from each contact's agent in turn (one agent may send 60 a minute). */
export function sendsInTurn(contacts: Contact[], content: string): autocannon.Request {
  let next = 0;
  return {
    method: "POST",
    path: "/api/agent/v1/messages",
    setupRequest: (request) => {
      const contact = contacts[next++ % contacts.length] as Contact;
      return {
        ...request,
        headers: { authorization: contact.auth, "content-type": "application/json" },
        body: JSON.stringify({ to: contact.person.num, type: "text", content }),
      };
    },
  };
}
