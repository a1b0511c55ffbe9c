import { type CoreDeps, createUser } from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { TRPCError } from "@trpc/server";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionUser } from "~/auth/options";
import { BODY_CAPS, handleTrpcRequest, MAX_BATCH_CALLS, PUBLIC_PROCEDURES } from "./handler";
import { createCallerFactory } from "./init";
import { appRouter } from "./router";

let t: Awaited<ReturnType<typeof createTestDeps>>;
let person: SessionUser;
beforeAll(async () => {
  t = await createTestDeps();
  const user = await createUser(t.deps, { displayName: "Edge" });
  person = { id: user.id, num: user.num, name: "Edge" };
});
afterAll(() => t.close());

/** A body of `bytes` that counts what the server pulled from it. */
function countedBody(bytes: number) {
  const pulled = { bytes: 0 };
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  let left = bytes;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (left <= 0) return controller.close();
      const part = chunk.subarray(0, Math.min(chunk.byteLength, left));
      left -= part.byteLength;
      pulled.bytes += part.byteLength;
      controller.enqueue(part);
    },
  });
  return { stream, pulled };
}

function post(path: string, body: BodyInit, headers: Record<string, string> = {}) {
  return new Request(`http://console.test/api/trpc/${path}`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...headers },
    body,
    duplex: "half",
  } as RequestInit);
}

const as =
  (user: SessionUser | null, deps: CoreDeps = t.deps) =>
  async () => ({ deps, user });

async function errorOf(response: Response) {
  const body = (await response.json()) as unknown;
  const first = (Array.isArray(body) ? body[0] : body) as { error: { json: unknown } };
  return superjson.deserialize(first.error as never) as {
    message: string;
    data: { httpStatus: number; code: string };
  };
}

describe("before any body is read", () => {
  it("refuses a signed-out call of a protected procedure without reading its 16 MB body", async () => {
    const { stream, pulled } = countedBody(16 * 1024 * 1024);
    const response = await handleTrpcRequest(post("chats.send", stream), as(null));
    expect(response.status).toBe(401);
    expect((await errorOf(response)).data.code).toBe("unauthorized");
    expect(pulled.bytes).toBeLessThan(256 * 1024);
  });

  it("refuses another origin's page before reading the body or the session", async () => {
    const { stream, pulled } = countedBody(4 * 1024 * 1024);
    let asked = false;
    const response = await handleTrpcRequest(
      post("chats.send", stream, { Origin: "https://evil.example" }),
      async () => {
        asked = true;
        return { deps: t.deps, user: person };
      },
    );
    expect(response.status).toBe(403);
    expect(asked).toBe(false);
    expect(pulled.bytes).toBeLessThan(256 * 1024);
  });

  it(`refuses a batch of more than ${MAX_BATCH_CALLS} calls with 400, running none`, async () => {
    const paths = Array(MAX_BATCH_CALLS + 1)
      .fill("agents.list")
      .join(",");
    let asked = false;
    const response = await handleTrpcRequest(
      new Request(`http://console.test/api/trpc/${paths}?batch=1&input={}`),
      async () => {
        asked = true;
        return { deps: t.deps, user: person };
      },
    );
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.data.code).toBe("validation_error");
    expect(error.message).toMatch(/at most 10 calls/);
    expect(asked).toBe(false);
    // A batch of exactly the limit runs.
    const ten = Array(MAX_BATCH_CALLS).fill("auth.me").join(",");
    const allowed = await handleTrpcRequest(
      new Request(`http://console.test/api/trpc/${ten}?batch=1&input={}`),
      as(person),
    );
    expect(allowed.status).toBe(200);
  });

  it("answers a path no procedure has with 404, signed in or not", async () => {
    for (const user of [null, person]) {
      const response = await handleTrpcRequest(
        new Request("http://console.test/api/trpc/constructor"),
        as(user),
      );
      expect(response.status).toBe(404);
    }
  });
});

describe("body caps by caller", () => {
  it("caps a signed-out sign-up at 16 KB, as it streams in", async () => {
    const { stream, pulled } = countedBody(8 * 1024 * 1024);
    const response = await handleTrpcRequest(post("auth.signUp", stream), as(null));
    expect(response.status).toBe(413);
    expect(pulled.bytes).toBeLessThan(BODY_CAPS.public + 256 * 1024);
  });

  it("caps a signed-in call at 1 MB, but lets the voice-note upload carry more", async () => {
    const big = JSON.stringify({ chat: "cnv_x", message: "a".repeat(2 * 1024 * 1024) });
    const other = await handleTrpcRequest(post("chats.markRead", big), as(person));
    expect(other.status).toBe(413);
    // Read in full and handed to the procedure (which refuses the chat it does not know).
    const upload = await handleTrpcRequest(post("chats.send", big), as(person));
    expect(upload.status).not.toBe(413);
    expect(upload.status).toBeLessThan(500);
  });
});

describe("console request limit", () => {
  it("holds per person across processes (the counters are in Postgres), with 429 and Retry-After", async () => {
    const user = await createUser(t.deps, { displayName: "Busy" });
    const busy = { id: user.id, num: user.num, name: "Busy" };
    const config = { ...t.deps.config, LIMIT_CONSOLE_REQUESTS_PER_MIN: 3 };
    // Two web processes: their own deps objects, one database.
    const processA = { ...t.deps, config };
    const processB = { ...t.deps, config };
    const call = (deps: CoreDeps) =>
      handleTrpcRequest(new Request("http://console.test/api/trpc/auth.me"), as(busy, deps));
    expect((await call(processA)).status).toBe(200);
    expect((await call(processB)).status).toBe(200);
    expect((await call(processA)).status).toBe(200);
    const refused = await call(processB);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("Retry-After")).toMatch(/^\d+$/);
    expect((await errorOf(refused)).data.code).toBe("rate_limited");
    // Another person is not affected.
    const other = await createUser(t.deps, { displayName: "Calm" });
    const calm = { id: other.id, num: other.num, name: "Calm" };
    const theirs = await handleTrpcRequest(
      new Request("http://console.test/api/trpc/auth.me"),
      as(calm, processA),
    );
    expect(theirs.status).toBe(200);
  });
});

describe("PUBLIC_PROCEDURES", () => {
  it("lists exactly the procedures that answer without a session", async () => {
    const caller = createCallerFactory(appRouter)({ deps: t.deps, user: null });
    const open: string[] = [];
    for (const path of Object.keys(appRouter._def.procedures)) {
      const procedure = path
        .split(".")
        .reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller) as (
        input: unknown,
      ) => Promise<unknown>;
      const outcome = await Promise.resolve()
        .then(() => procedure({}))
        .then(
          () => "answered",
          (error: unknown) =>
            error instanceof TRPCError && error.code === "UNAUTHORIZED" ? "refused" : "answered",
        );
      if (outcome === "answered") open.push(path);
    }
    expect(open.sort()).toEqual([...PUBLIC_PROCEDURES].sort());
  });
});
