import { createECDH, randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { listPushDevices, notifyPerson, proposeAction } from "@switchboard/core";
import { createTestDeps, testChat } from "@switchboard/core/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { SessionUser } from "~/auth/options";
import * as decision from "../../app/api/console/actions/[actionId]/decision/route";
import * as subscriptions from "../../app/api/console/push-subscriptions/route";
import { provideDeps } from "./deps";

/** Who the routes see signed in (next-auth's session, replaced). */
let signedIn: SessionUser | null = null;
vi.mock("~/auth/session", () => ({
  getSession: async () => (signedIn ? { user: signedIn, standing: "active" } : null),
  getSessionUser: async () => signedIn,
}));

let t: Awaited<ReturnType<typeof createTestDeps>>;
let origin: string;
const arrived: string[] = [];
const close: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  t = await createTestDeps({ env: { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1" } });
  t.clock.set(new Date());
  provideDeps(t.deps);
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      arrived.push(req.url ?? "");
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close.push(() => new Promise((resolve) => server.close(resolve)));
});
afterAll(async () => {
  for (const done of close) await done();
  await t.close();
});

const CONSOLE = "http://console.test";
const context = (params: Record<string, string> = {}) => ({ params: Promise.resolve(params) });
function call(
  handler: (request: Request, ctx: ReturnType<typeof context>) => Promise<Response>,
  path: string,
  method: string,
  body: unknown,
  headers: Record<string, string> = { origin: CONSOLE },
  params: Record<string, string> = {},
) {
  return handler(
    new Request(`${CONSOLE}${path}`, {
      method,
      headers: { host: "console.test", "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
    context(params),
  );
}
const subscribe = (body: unknown, headers?: Record<string, string>) =>
  call(subscriptions.POST, "/api/console/push-subscriptions", "POST", body, headers);
const unsubscribe = (body: unknown) =>
  call(subscriptions.DELETE, "/api/console/push-subscriptions", "DELETE", body);
const decide = (actionId: string, body: unknown, headers?: Record<string, string>) =>
  call(decision.POST, `/api/console/actions/${actionId}/decision`, "POST", body, headers, {
    actionId,
  });

function browserSubscription(path: string) {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  return {
    endpoint: `${origin}${path}`,
    expirationTime: null,
    keys: {
      p256dh: ecdh.getPublicKey().toString("base64url"),
      auth: randomBytes(16).toString("base64url"),
    },
  };
}

async function signIn() {
  const chat = await testChat(t.deps);
  signedIn = { id: chat.person.id, num: chat.person.num, name: "Pat", sessionId: "ses_test" };
  return chat;
}

const codeOf = async (response: Response) =>
  ((await response.json()) as { error?: { code: string } }).error?.code;

describe("POST and DELETE /api/console/push-subscriptions", () => {
  it("subscribes the signed-in person's browser, and the card's push reaches it", async () => {
    const { person, agent, conversationId } = await signIn();
    const sub = browserSubscription("/push/route");
    const answer = await subscribe(sub, {
      origin: CONSOLE,
      "user-agent": "Mozilla/5.0 (Windows NT 10.0) Gecko/20100101 Firefox/133.0",
    });
    expect(answer.status).toBe(201);
    expect(await answer.json()).toMatchObject({
      endpoint: sub.endpoint,
      label: "Firefox on Windows",
    });
    const { action } = await proposeAction(t.deps, { agentId: agent.id }, {
      conversationId,
      title: "Book a table",
      kind: "table.book",
    } as never);
    arrived.length = 0;
    await notifyPerson(t.deps, { userId: person.id, notice: "card", actionId: action.id });
    expect(arrived).toEqual(["/push/route"]);

    expect((await unsubscribe({ endpoint: sub.endpoint })).status).toBe(200);
    expect(await listPushDevices(t.deps, person.id)).toEqual([]);
  });

  it("answers 401 without a session, 403 from another origin, 400 for a malformed subscription", async () => {
    await signIn();
    const sub = browserSubscription("/push/refused");
    expect(await codeOf(await subscribe(sub, { origin: "https://evil.example" }))).toBe(
      "forbidden",
    );
    expect(await codeOf(await subscribe({ ...sub, endpoint: "nope" }))).toBe("validation_error");
    expect(await codeOf(await subscribe({ endpoint: sub.endpoint, keys: {} }))).toBe(
      "validation_error",
    );
    const notJson = await subscribe("{");
    expect(notJson.status).toBe(400);
    expect(await codeOf(await subscribe({ ...sub, endpoint: "https://192.168.1.1/x" }))).toBe(
      "validation_error",
    );
    signedIn = null;
    const anonymous = await subscribe(sub);
    expect(anonymous.status).toBe(401);
    expect(await codeOf(anonymous)).toBe("unauthorized");
    const get = await subscriptions.GET(
      new Request(`${CONSOLE}/api/console/push-subscriptions`),
      context(),
    );
    expect(get.status).toBe(405);
  });
});

describe("POST /api/console/actions/{actionId}/decision", () => {
  it("decides the card as the console does; a decided card answers 409 in words", async () => {
    const { agent, conversationId } = await signIn();
    const { action } = await proposeAction(t.deps, { agentId: agent.id }, {
      conversationId,
      title: "Order pizza",
      kind: "pizza.order",
    } as never);
    expect(
      await codeOf(
        await decide(action.id, { decision: "approve" }, { origin: "https://evil.example" }),
      ),
    ).toBe("forbidden");
    expect(await codeOf(await decide(action.id, { decision: "maybe" }))).toBe("validation_error");
    const approved = await decide(action.id, { decision: "approve" });
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ action: { id: action.id, state: "approved" } });
    const again = await decide(action.id, { decision: "reject" });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({
      error: { code: "conflict", message: "This proposal is already approved" },
    });
    expect(await codeOf(await decide("act_nothere1", { decision: "reject" }))).toBe("not_found");
    // Someone else's card is not theirs to decide.
    await signIn();
    expect(await codeOf(await decide(action.id, { decision: "reject" }))).toBe("not_found");
  });
});
