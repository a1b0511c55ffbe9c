import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { ApiError } from "@switchboard/contract";
import { consoleSession } from "../support/console-session";
import { newAgent, newContact } from "../support/fixtures";
import { rawRequest } from "../support/raw-http";
import { expect, test } from "../support/test";

/**
 * The web process's edge against bodies and auth input that arrive before anyone is known
 * (issue 39; decision 0061): pages take no body, one caller's slow uploads take only its own
 * share of the body budget, a stalled body is cut, and next-auth's endpoints refuse what they
 * would fail on.
 */

const port = () => Number(process.env.E2E_PORT);
const base = () => `http://127.0.0.1:${port()}`;

/** Sends only a request's head and answers what comes back before any body byte is sent. */
function headOnly(method: string, path: string, framing: string) {
  return new Promise<{ status: number; head: string; code: string }>((resolve, reject) => {
    const socket = connect(port(), "127.0.0.1", () =>
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${framing}\r\n\r\n`),
    );
    const chunks: Buffer[] = [];
    socket.setTimeout(10_000, () => socket.destroy(new Error(`${method} ${path}: no answer`)));
    socket.on("data", (chunk) => chunks.push(chunk));
    socket.on("close", () => {
      const [head = "", body = ""] = Buffer.concat(chunks).toString("utf8").split("\r\n\r\n");
      try {
        resolve({
          status: Number(head.split(" ")[1]),
          head,
          code: ApiError.parse(JSON.parse(body)).error.code,
        });
      } catch (error) {
        reject(error);
      }
    });
    socket.on("error", reject);
  });
}

test("a large POST to a page is refused before its body is read", async () => {
  // Only the head goes out: an answer proves the server did not wait for 60 MB.
  for (const path of ["/signin", "/chats", "/", "/docs"]) {
    const answer = await headOnly("POST", path, "Content-Length: 60000000");
    expect([answer.status, answer.code], path).toEqual([405, "method_not_allowed"]);
    expect(answer.head).toMatch(/Allow: GET, HEAD, OPTIONS/);
  }
  const chunked = await headOnly("POST", "/signin", "Transfer-Encoding: chunked");
  expect(chunked.status).toBe(405);
  const withBody = await headOnly("GET", "/chats", "Content-Length: 60000000");
  expect([withBody.status, withBody.code]).toEqual([413, "payload_too_large"]);
  // Pages still answer as before.
  expect((await rawRequest(base(), "GET", "/signin")).status).toBe(200);
});

/**
 * A message send whose head declares `declared` bytes, of which `sent` go out at once; then
 * nothing more until `stop()`. Answers the status it got, if any, when it ends.
 */
function heldUpload(auth: Record<string, string>, declared: number, sent: number) {
  const req = httpRequest({
    host: "127.0.0.1",
    port: port(),
    method: "POST",
    path: "/api/agent/v1/messages",
    headers: { ...auth, "Content-Type": "application/json", "Content-Length": String(declared) },
  });
  const answered = new Promise<number | null>((resolve) => {
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", () => resolve(null));
    req.on("close", () => resolve(null));
  });
  req.write(`{"type":"text","content":"${"a".repeat(sent - 30)}`);
  return { answered, stop: () => req.destroy() };
}

test("five slow large uploads from one agent leave another agent's send and a sign-in alone", async ({
  request,
}) => {
  test.slow();
  const greedy = await newAgent();
  const uploads = Array.from({ length: 5 }, () =>
    heldUpload(greedy.auth, 16_000_000, 13 * 1024 * 1024),
  );
  try {
    // The agent's share (20 MiB) holds one 13 MB upload: its other four are its own excess,
    // refused as they pass it, while the one it keeps stays held.
    const answers = await Promise.all(
      uploads.map((upload) =>
        Promise.race([
          upload.answered,
          new Promise<"held">((resolve) => setTimeout(() => resolve("held"), 20_000)),
        ]),
      ),
    );
    expect(answers.filter((answer) => answer === 429)).toHaveLength(4);
    expect(answers.filter((answer) => answer === "held")).toHaveLength(1);
    const { auth, person } = await newContact();
    const started = Date.now();
    const send = await request.post("/api/agent/v1/messages", {
      headers: auth,
      data: { to: person.num, type: "text", content: "still here" },
    });
    expect(send.status(), await send.text()).toBe(201);
    await consoleSession(base()); // signs up and in; throws on any refusal
    expect(Date.now() - started).toBeLessThan(10_000);
  } finally {
    for (const upload of uploads) upload.stop();
  }
});

test("a body that stalls is cut with 408 request_timeout", async () => {
  test.slow();
  const { auth } = await newAgent();
  const started = Date.now();
  const upload = heldUpload(auth, 1_000_000, 1024);
  const status = await upload.answered;
  upload.stop();
  expect(status).toBe(408);
  // The grace is 10 s for a body with nothing in hand; it is not held for minutes.
  expect(Date.now() - started).toBeLessThan(30_000);
});

test("next-auth's endpoints answer 400 for input they would fail on, never 500", async () => {
  const json = { "Content-Type": "application/json" };
  const cases: [string, string, Record<string, string>, string?][] = [
    ["POST", "/api/auth/callback/credentials", json, '{"callbackUrl":{"a":1}}'],
    ["POST", "/api/auth/signin/credentials", json, '{"callbackUrl":{"a":1}}'],
    ["POST", "/api/auth/signout", json, '{"callbackUrl":{"a":1}}'],
    ["POST", "/api/auth/session", json, '{"callbackUrl":{"a":1}}'],
    ["GET", "/api/auth/session?callbackUrl=b", {}],
    ["GET", "/api/auth/csrf", { Cookie: "next-auth.callback-url=b" }],
    ["GET", "/api/auth/error?error=%00", {}],
    ["GET", "/api/auth/error?error='%20OR%201=1--", {}],
  ];
  for (const [method, path, headers, body] of cases) {
    const answer = await rawRequest(base(), method, path, headers, body);
    const where = `${method} ${path} ${body ?? ""} → ${answer.status} ${answer.text}`;
    expect(answer.status, where).toBe(400);
    expect(ApiError.parse(JSON.parse(answer.text)).error.code, where).toBe("validation_error");
    expect(answer.headers.location, where).toBeUndefined();
  }
  // What the sign-in page itself sends still works.
  const error = await rawRequest(base(), "GET", "/api/auth/error?error=CredentialsSignin");
  expect(error.status).toBe(302);
  expect(error.headers.location).toMatch(/\/signin\?error=CredentialsSignin$/);
});

test("the edge calls the Agent API's route handlers itself; Next serves the rest (decision 0081)", async () => {
  const { auth } = await newAgent();
  // Next streams a route handler's answer (chunked); the edge sends a whole JSON answer in one
  // write with its length. Were the edge's route table empty (a Next upgrade moving its build
  // manifests), every call would quietly go through Next again: this says so.
  const me = await rawRequest(base(), "GET", "/api/agent/v1/me", auth);
  expect(me.status).toBe(200);
  expect(me.headers["content-length"]).toBe(String(Buffer.byteLength(me.text)));
  expect(me.headers["transfer-encoding"]).toBeUndefined();
  // next.config's header rules hold on both paths.
  expect(me.headers["content-security-policy"]).toMatch(/default-src 'none'/);
  expect(me.headers["x-frame-options"]).toBe("DENY");
  const health = await rawRequest(base(), "GET", "/api/healthz");
  expect(health.status).toBe(200);
  expect(health.headers["transfer-encoding"]).toBe("chunked");
  // A path Next would normalise is still Next's: its redirect, not the handler.
  const slash = await rawRequest(base(), "GET", "/api/agent/v1/me/", auth);
  expect(slash.status).toBe(308);
});
