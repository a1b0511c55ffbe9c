import {
  addContact,
  CONSOLE_MEDIA_READS_PER_MIN,
  createAgent,
  createUser,
  sendAgentMessage,
  setUserSuspended,
} from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { createDb } from "@switchboard/db";
import { afterAll, beforeAll, expect, it, vi } from "vitest";
import type { SessionUser } from "~/auth/options";
import { GET } from "../../app/api/console/media/[messageId]/route";
import { provideDeps } from "./deps";

/** Who the route sees signed in (next-auth's session, replaced). */
let signedIn: SessionUser | null = null;
vi.mock("~/auth/session", () => ({ getSessionUser: async () => signedIn }));

let t: Awaited<ReturnType<typeof createTestDeps>>;
let traced: ReturnType<typeof createDb>;
const statements: string[] = [];
beforeAll(async () => {
  t = await createTestDeps();
  traced = createDb(t.config.DATABASE_URL as string, {
    max: 2,
    debug: (_connection, query) => statements.push(query),
  });
  provideDeps({ ...t.deps, db: traced.db, sql: traced.sql });
});
afterAll(async () => {
  await traced.close();
  await t.close();
});

/** A 3 MB document an agent sent a person, and the person's session. */
async function documentInChat() {
  const owner = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Files",
    requestedScopes: ["messages:write"],
  });
  const person = await createUser(t.deps, {});
  await addContact(t.deps, person.id, agent.id, ["messages:write"]);
  const bytes = Buffer.alloc(3 * 1024 * 1024, "0123456789abcdef");
  const { message } = await sendAgentMessage(
    t.deps,
    { agentId: agent.id },
    {
      to: person.num,
      type: "document",
      content: "the file",
      documentData: `data:text/plain;base64,${bytes.toString("base64")}`,
      documentName: "notes.txt",
    },
  );
  const user: SessionUser = {
    id: person.id,
    num: person.num,
    name: "P",
    sessionId: crypto.randomUUID(),
  };
  return { bytes, message, person, user };
}

const get = (messageId: string, range?: string) =>
  GET(
    new Request(`http://console.test/api/console/media/${messageId}`, {
      headers: range ? { range } : {},
    }),
    { params: Promise.resolve({ messageId }) },
  );

it("streams a range from the store without reading the whole object", async () => {
  const { bytes, message, user } = await documentInChat();
  signedIn = user;
  statements.length = 0;
  const part = await get(message.id, "bytes=1000-1999");
  expect(part.status).toBe(206);
  expect(part.headers.get("content-range")).toBe(`bytes 1000-1999/${bytes.length}`);
  expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(1000, 2000))).toBe(true);
  // The object's bytes were read only as substrings (the range and the first bytes to sniff).
  const readsData = statements.filter((q) => q.includes('"data"'));
  expect(readsData.length).toBeGreaterThan(0);
  expect(readsData.filter((q) => !/^select substring\("data" from/.test(q))).toEqual([]);

  const whole = await get(message.id);
  expect([whole.status, whole.headers.get("content-length")]).toEqual([200, String(bytes.length)]);
  expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
});

it("refuses a suspended person's session and limits reads per session", async () => {
  const { message, person, user } = await documentInChat();
  signedIn = user;
  for (let i = 0; i < CONSOLE_MEDIA_READS_PER_MIN; i++)
    expect((await get(message.id, "bytes=0-0")).status).toBe(206);
  const limited = await get(message.id, "bytes=0-0");
  expect([limited.status, (await limited.json()).error.code]).toEqual([429, "rate_limited"]);
  expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
  // Another session of the same person has its own count.
  signedIn = { ...user, sessionId: crypto.randomUUID() };
  expect((await get(message.id, "bytes=0-0")).status).toBe(206);

  await setUserSuspended(t.deps, person.id, true);
  const refused = await get(message.id, "bytes=0-0");
  expect(refused.status).toBe(403);
  expect(refused.headers.get("content-range")).toBeNull();
});
