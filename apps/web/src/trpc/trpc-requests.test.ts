import {
  type CoreDeps,
  captureLogs,
  endConsoleSession,
  newConsoleSessionId,
} from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { createTRPCClient, httpLink } from "@trpc/client";
import superjson from "superjson";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionUser } from "~/auth/options";
import { handleTrpcRequest } from "./handler";
import type { AppRouter } from "./router";
import { consoleClient, failure, signUpThroughConsole } from "./testing";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const consoleAs = (user: SessionUser | null, deps: CoreDeps = t.deps) => consoleClient(deps, user);

const signUp = (name: string) => signUpThroughConsole(t.deps, name);

describe("errors", () => {
  it("answers an unknown procedure with 404 not_found", async () => {
    const client = consoleAs(null) as unknown as {
      nope: { list: { query(): Promise<unknown> } };
    };
    expect((await failure(client.nope.list.query())).data).toMatchObject({
      httpStatus: 404,
      code: "not_found",
    });
  });

  it("answers an unexpected failure with 500 internal_error, logging it and leaking nothing", async () => {
    const lines: string[] = [];
    const restore = captureLogs(lines);
    const broken = new Proxy(t.deps, {
      get(target, key) {
        if (key === "db") throw new Error("connection to 10.0.0.7 refused at /srv/secret.ts:42");
        return Reflect.get(target, key);
      },
    });
    const user = { id: "usr_x", num: "123-456-789", name: "X" };
    const failed = await failure(consoleAs(user, broken).agents.list.query()).finally(restore);
    expect(failed).toEqual({
      message: "Something went wrong on our side",
      data: { httpStatus: 500, code: "internal_error" },
    });
    const logged = lines.map((line) => JSON.parse(line));
    expect(logged).toContainEqual(
      expect.objectContaining({
        level: 50,
        msg: "unexpected error",
        procedure: "agents.list",
        err: expect.stringMatching(/^Error: connection to 10\.0\.0\.7/),
      }),
    );
  });
});

describe("owner dashboards and the webhook page", () => {
  it("answers an agent's history, delivery and test only to its owner", async () => {
    const owner = await signUp("Otto");
    const other = await signUp("Nosy");
    const agent = await owner.session.agents.create.mutate({
      displayName: "Charted",
      requestedScopes: ["messages:read"],
      requestPrivacy: "everyone",
    });
    const history = await owner.session.agents.history.query({ agentId: agent.id, days: 7 });
    expect(history.days).toHaveLength(7);
    expect((await owner.session.agents.list.query())[0]).toMatchObject({
      id: agent.id,
      contacts: 0,
      lastActivityAt: null,
    });
    for (const call of [
      () => other.session.agents.history.query({ agentId: agent.id, days: 7 }),
      () => other.session.webhooks.sendTest.mutate({ agentId: agent.id }),
      () => other.session.webhooks.delivery.query({ agentId: agent.id, eventId: "evt_x" }),
      () => other.session.webhooks.retry.mutate({ agentId: agent.id, eventId: "evt_x" }),
    ])
      expect((await failure(call())).data).toMatchObject({ httpStatus: 404, code: "not_found" });
    // The owner without a webhook is told to set one first.
    expect(
      (await failure(owner.session.webhooks.sendTest.mutate({ agentId: agent.id }))).message,
    ).toBe("This agent has no webhook; set its URL first");
  });
});

describe("requests from other origins", () => {
  /** A console client whose requests carry `headers`, as a browser page would send them. */
  const from = (headers: Record<string, string>, user: SessionUser | null = null) =>
    createTRPCClient<AppRouter>({
      links: [
        httpLink({
          url: "http://console.test/api/trpc",
          transformer: superjson,
          headers: { host: "console.test", ...headers },
          fetch: (url, init) =>
            handleTrpcRequest(new Request(url, init as RequestInit), async () => ({
              deps: t.deps,
              user,
            })),
        }),
      ],
    });
  const signUpInput = () => ({
    displayName: "Mallory",
    email: `m-${Math.random().toString(36).slice(2)}@example.com`,
    password: "correct horse battery",
  });

  it("refuses a mutation another origin's page sends with 403 forbidden, before it runs", async () => {
    const crossOrigin: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "http://console.test:8080" },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
    ];
    for (const headers of crossOrigin) {
      const input = signUpInput();
      const refused = await failure(from(headers).auth.signUp.mutate(input));
      expect(refused.data).toMatchObject({ httpStatus: 403, code: "forbidden" });
      expect(refused.message).toMatch(/not accepted/);
      // Nothing happened: the same sign-up from the console itself goes through.
      await expect(
        from({ origin: "http://console.test" }).auth.signUp.mutate(input),
      ).resolves.toMatchObject({ userType: "person" });
    }
    await expect(
      from({ "sec-fetch-site": "same-origin" }).auth.signUp.mutate(signUpInput()),
    ).resolves.toMatchObject({ userType: "person" });
  });

  it("refuses another origin's subscription to the live view", async () => {
    const { user } = await signUp("Sub");
    const session = { id: user.id, num: user.num, name: "Sub" };
    const subscribe = (origin: string) =>
      handleTrpcRequest(
        new Request("http://console.test/api/trpc/live.changes", {
          headers: { host: "console.test", origin, accept: "text/event-stream" },
        }),
        async () => ({ deps: t.deps, user: session }),
      );
    const refused = await subscribe("https://evil.example");
    expect(refused.status).toBe(403);
    expect(JSON.stringify(await refused.json())).toContain('"code":"forbidden"');
    const allowed = await subscribe("http://console.test");
    expect(allowed.status).toBe(200);
    await allowed.body?.cancel();
  });
});

describe("request bodies", () => {
  it("stops reading a chunked body at the cap and answers 413 payload_too_large", async () => {
    const { user } = await signUp("Bulky");
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(chunk);
      },
    });
    const response = await handleTrpcRequest(
      new Request("http://console.test/api/trpc/chats.send?batch=1", {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body,
        duplex: "half",
      } as RequestInit),
      async () => ({ deps: t.deps, user: { id: user.id, num: user.num, name: "Bulky" } }),
    );
    expect(response.status).toBe(413);
    const [answer] = await response.json();
    expect(answer.error.json).toMatchObject({
      code: -32013,
      data: { httpStatus: 413, code: "payload_too_large" },
    });
    expect(pulled).toBeLessThanOrEqual(18);
  });
});

describe("text that cannot be stored", () => {
  it("refuses NUL and lone surrogates in any procedure's input with 400 and the path", async () => {
    const { session } = await signUp("Nully");
    const refused = await failure(
      session.chats.send.mutate({ chat: "cnv_x", message: { type: "text", content: "a\u0000b" } }),
    );
    expect(refused.data).toMatchObject({
      httpStatus: 400,
      code: "validation_error",
      issues: [{ path: "message.content", message: "must not contain NUL (\\u0000) characters" }],
    });
    const query = await failure(session.chats.consentCard.query({ agent: "\uD800" }));
    expect(query.data).toMatchObject({
      httpStatus: 400,
      issues: [{ path: "agent", message: "must not contain unpaired UTF-16 surrogates" }],
    });
  });
});

describe("signed-out sessions", () => {
  it("answers 401 for a session that was signed out, while the person's other sessions work", async () => {
    const { user } = await signUp("Sig");
    const [ended, other] = [newConsoleSessionId(), newConsoleSessionId()];
    const as = (sessionId: string) =>
      consoleAs({ id: user.id, num: user.num, name: "Sig", sessionId });
    await as(ended).auth.me.query();
    await endConsoleSession(t.deps, {
      userId: user.id,
      sessionId: ended,
      expiresAt: new Date(Date.now() + 3600_000),
    });
    expect((await failure(as(ended).auth.me.query())).data).toMatchObject({
      httpStatus: 401,
      code: "unauthorized",
    });
    expect((await as(other).auth.me.query()).id).toBe(user.id);
  });
});
