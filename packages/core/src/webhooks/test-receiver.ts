import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll } from "vitest";
import type { CoreDeps } from "../deps";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";

// The webhook tests' receivers and fixtures. No hooks at import: each test file owns its deps
// (a receiver closes itself after the file that started it).

export interface Received {
  headers: IncomingMessage["headers"];
  body: string;
}

/** A real local receiver answering each POST with `answer()`'s status (after `delayMs`). */
export async function receiver(
  answer: () => { status: number; delayMs?: number } = () => ({ status: 200 }),
) {
  const received: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      const { status, delayMs } = answer();
      setTimeout(() => {
        res.statusCode = status;
        if (status >= 300 && status < 400) res.setHeader("Location", "http://127.0.0.1:1/");
        res.end();
      }, delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  return { url, received };
}

/** An owner's new agent, with no webhook yet. */
export async function newHookedAgent(deps: CoreDeps) {
  const owner = await createUser(deps, {});
  const agent = await createAgent(deps, { ownerId: owner.id, displayName: "Hooked" });
  return agent.id;
}

/** The agent's deliveries, in event order. */
export async function deliveryIdsOf(deps: CoreDeps, agentId: string) {
  const rows = await deps.db
    .select({ id: schema.webhookDeliveries.id })
    .from(schema.webhookDeliveries)
    .where(eq(schema.webhookDeliveries.agentId, agentId))
    .orderBy(schema.webhookDeliveries.eventSeq);
  return rows.map((r) => r.id);
}

/** Checks an `X-Svc-Signature` against a secret the way a receiver does. */
export function verifies(header: string, body: string, secret: string): boolean {
  const parts = header.split(",");
  const time = parts.find((p) => p.startsWith("t="))?.slice(2);
  const expected = createHmac("sha256", secret).update(`${time}.${body}`).digest("hex");
  return parts.some((p) => p === `v1=${expected}`);
}
