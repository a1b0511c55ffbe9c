import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { addContact, createAgent, createUser, loadConfig } from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { SessionUser } from "~/auth/options";
import { GET } from "../../app/api/console/avatar/[agentId]/route";
import { provideDeps } from "./deps";

/** Who the route sees signed in (next-auth's session, replaced). */
let signedIn: SessionUser | null = null;
vi.mock("~/auth/session", () => ({ getSessionUser: async () => signedIn }));

/** The smallest PNG: its signature and an IHDR chunk are what the sniffer reads. */
const PNG = Buffer.from(
  "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d8a3a40000000049454e44ae426082",
  "hex",
);

let t: Awaited<ReturnType<typeof createTestDeps>>;
let server: Server;
let origin: string;
beforeAll(async () => {
  t = await createTestDeps();
  provideDeps({
    ...t.deps,
    config: loadConfig({
      DATABASE_URL: t.config.DATABASE_URL,
      MEDIA_ALLOW_INSECURE_HOSTS: "127.0.0.1",
      MEDIA_FETCH_TIMEOUT_MS: "500",
    }),
  });
  server = createServer((request, response) => {
    if (request.url === "/me.png") {
      response.writeHead(200, { "Content-Type": "text/html" });
      return response.end(PNG);
    }
    response.writeHead(200, { "Content-Type": "image/png" }).end("<script>alert(1)</script>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

async function pictured(path: string) {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Pictured",
    requestedScopes: ["messages:write"],
  });
  const person = await createUser(t.deps, {});
  await addContact(t.deps, person.id, agent.id, ["messages:write"]);
  await t.deps.db
    .update(schema.users)
    .set({ avatarUrl: `${origin}${path}` })
    .where(eq(schema.users.id, agent.id));
  const user: SessionUser = { id: person.id, num: person.num, name: "P", sessionId: "s1" };
  return { agent, user, owner };
}

const get = (agentId: string) =>
  GET(new Request(`http://console.test/api/console/avatar/${agentId}`), {
    params: Promise.resolve({ agentId }),
  });

it("serves the agent's picture from our origin, typed by its content, kept an hour", async () => {
  const { agent, user } = await pictured("/me.png");
  signedIn = user;
  const answer = await get(agent.id);
  expect(answer.status).toBe(200);
  expect(answer.headers.get("content-type")).toBe("image/png");
  expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
  expect(answer.headers.get("cache-control")).toBe("private, max-age=3600");
  expect(Buffer.from(await answer.arrayBuffer()).equals(PNG)).toBe(true);
});

it("answers in the error envelope: signed out, a bad id, no chat with the agent, not an image", async () => {
  const { agent, owner } = await pictured("/page");
  signedIn = null;
  expect((await get(agent.id)).status).toBe(401);
  signedIn = { id: owner.id, num: owner.num, name: "O", sessionId: "s2" };
  const bad = await get("../../etc");
  expect([bad.status, (await bad.json()).error.code]).toEqual([404, "not_found"]);
  const stranger = await get(agent.id);
  expect([stranger.status, (await stranger.json()).error.code]).toEqual([404, "not_found"]);
  const mine = await pictured("/page");
  signedIn = mine.user;
  const notImage = await get(mine.agent.id);
  expect([notImage.status, (await notImage.json()).error.code]).toEqual([415, "unsupported_media"]);
});
