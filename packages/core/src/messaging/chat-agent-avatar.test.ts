import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config";
import { addContact } from "../contacts/contacts";
import type { CoreDeps } from "../deps";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { pngBytes } from "../objects/test-media";
import { codeOf, createTestDeps } from "../testing";
import { AVATAR_KEEP_MS, AVATAR_MAX_BYTES, getChatAgentAvatar } from "./chat-agent-avatar";

let t: Awaited<ReturnType<typeof createTestDeps>>;
let deps: CoreDeps;
let server: Server;
let origin: string;
/** What the agent's server was asked for, in order; and whether it fails for now. */
const asked: string[] = [];
let down = false;

beforeAll(async () => {
  t = await createTestDeps();
  deps = {
    ...t.deps,
    config: loadConfig({
      DATABASE_URL: t.config.DATABASE_URL,
      MEDIA_ALLOW_INSECURE_HOSTS: "127.0.0.1",
      MEDIA_FETCH_TIMEOUT_MS: "500",
    }),
  };
  // The agent's own server: a picture, one too large, and markup that says it is an image.
  server = createServer((request, response) => {
    asked.push(request.url ?? "");
    if (down) return response.writeHead(503).end();
    const send = (type: string, body: Buffer | string) => {
      response.writeHead(200, { "Content-Type": type });
      response.end(body);
    };
    if (request.url === "/me.png" || request.url === "/new.png")
      return send("text/plain", pngBytes());
    if (request.url === "/huge.png")
      return send("image/png", Buffer.concat([pngBytes(), Buffer.alloc(AVATAR_MAX_BYTES)]));
    if (request.url === "/me.svg")
      return send("image/svg+xml", '<svg xmlns="http://www.w3.org/2000/svg"><script/></svg>');
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

/** A person with a chat with an agent whose picture is at `path` on the agent's server. */
async function agentPictured(path: string | null) {
  const owner = await createUser(deps, {});
  const person = await createUser(deps, {});
  const agent = await createAgent(deps, {
    ownerId: owner.id,
    displayName: "Pictured",
    requestedScopes: ["messages:write"],
  });
  await addContact(deps, person.id, agent.id, ["messages:write"]);
  // Straight into the row: the API takes https only, the test server is http on loopback.
  await deps.db
    .update(schema.users)
    .set({ avatarUrl: path && `${origin}${path}` })
    .where(eq(schema.users.id, agent.id));
  return { owner, person, agent };
}

describe("getChatAgentAvatar", () => {
  it("fetches the picture for a person who has a chat with the agent, typed by its content", async () => {
    const { person, agent } = await agentPictured("/me.png");
    const picture = await getChatAgentAvatar(deps, person.id, agent.id);
    expect(picture.mimeType).toBe("image/png");
    expect(picture.bytes.equals(pngBytes())).toBe(true);
  });

  it("is not_found for someone without a chat with the agent, and for an agent without a picture", async () => {
    const { owner, agent } = await agentPictured("/me.png");
    expect(await codeOf(getChatAgentAvatar(deps, owner.id, agent.id))).toBe("not_found");
    const bare = await agentPictured(null);
    expect(await codeOf(getChatAgentAvatar(deps, bare.person.id, bare.agent.id))).toBe("not_found");
  });

  it("refuses a picture over the avatar bound and anything that is not a raster image", async () => {
    const huge = await agentPictured("/huge.png");
    expect(await codeOf(getChatAgentAvatar(deps, huge.person.id, huge.agent.id))).toBe(
      "media_too_large",
    );
    const svg = await agentPictured("/me.svg");
    expect(await codeOf(getChatAgentAvatar(deps, svg.person.id, svg.agent.id))).toBe(
      "unsupported_media",
    );
  });

  it("never fetches from a private address in production settings", async () => {
    const { person, agent } = await agentPictured("/me.png");
    const strict = { ...deps, config: loadConfig({ DATABASE_URL: t.config.DATABASE_URL }) };
    expect(await codeOf(getChatAgentAvatar(strict, person.id, agent.id))).toBe(
      "media_fetch_failed",
    );
  });

  it("keeps a fetched picture for everyone for a day; a new URL is fetched at once; a kept one outlasts an outage", async () => {
    const { person, agent } = await agentPictured("/me.png");
    const other = await createUser(deps, {});
    await addContact(deps, other.id, agent.id, ["messages:write"]);
    const reads = () => asked.filter((url) => url === "/me.png").length;
    const before = reads();
    await getChatAgentAvatar(deps, person.id, agent.id);
    t.clock.advance(AVATAR_KEEP_MS - 1000);
    const kept = await getChatAgentAvatar(deps, other.id, agent.id);
    expect(kept.bytes.equals(pngBytes())).toBe(true);
    expect(reads() - before).toBe(1);

    // A day later the agent's server is asked again.
    t.clock.advance(2000);
    await getChatAgentAvatar(deps, person.id, agent.id);
    expect(reads() - before).toBe(2);

    // Past the day with the server down: the kept picture of the same URL, not an error.
    t.clock.advance(AVATAR_KEEP_MS);
    down = true;
    try {
      const during = await getChatAgentAvatar(deps, person.id, agent.id);
      expect(during.mimeType).toBe("image/png");
      expect(reads() - before).toBe(3);
      // A new picture is a new URL: fetched at once, never the old bytes.
      await deps.db
        .update(schema.users)
        .set({ avatarUrl: `${origin}/new.png` })
        .where(eq(schema.users.id, agent.id));
      expect(await codeOf(getChatAgentAvatar(deps, person.id, agent.id))).toBe(
        "media_fetch_failed",
      );
    } finally {
      down = false;
    }
    await getChatAgentAvatar(deps, person.id, agent.id);
    expect(asked.filter((url) => url === "/new.png")).toHaveLength(2);
  });
});
