import { connect } from "node:net";
import type { AgentScope } from "@switchboard/contract";
import { ApiError, agentScopes, type Operation, ops } from "@switchboard/contract";
import fc from "fast-check";
import type { z } from "zod";
import { consoleSession } from "../support/console-session";
import { newContact, newDeveloper } from "../support/fixtures";
import { type RawAnswer, rawRequest } from "../support/raw-http";
import { expect, test } from "../support/test";

/**
 * Property-based fuzzing of every operation in the registry (so a new operation is fuzzed the
 * day it is added): odd path parameters, query strings, bodies and content types, sent raw.
 * Whatever comes in, the answer is never a 5xx (but the spec's speech-engine codes), always JSON,
 * and either the error envelope with a known code or the operation's success shape.
 * `npm run fuzz` runs the same properties with FUZZ_RUNS (default here: a bounded run in npm test);
 * a failure prints the seed and the shrunk request, and `FUZZ_SEED` replays it.
 */

const numRuns = Number(process.env.FUZZ_RUNS ?? 12);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;
/** 5xx answers the spec defines for a send (no speech engine, or it failed). */
const SPEC_SERVER_CODES = new Set(["tts_unavailable", "tts_failed"]);

const nastyText = fc.constantFrom(
  "",
  "\u0000",
  "a\u0000b",
  "\ud800",
  "x\udfff",
  "😀",
  "%",
  "..",
  "../../etc/passwd",
  "1e999",
  "-1",
  "0",
  "9".repeat(40),
  "x".repeat(3000),
  "<script>alert(1)</script>",
  "' or 1=1 --",
  "null",
  "[]",
  "{}",
);
const anyText = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.string({ unit: "binary", maxLength: 24 }),
  nastyText,
);
const anyLeaf = fc.oneof(
  anyText,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, 2 ** 31, -(2 ** 31) - 1),
);
const { anyValue } = fc.letrec<{ anyValue: unknown }>((tie) => ({
  anyValue: fc.oneof(
    { depthSize: "small" },
    anyLeaf,
    fc.array(tie("anyValue"), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie("anyValue"), { maxKeys: 4 }),
  ),
}));

/** The field names a schema knows (objects, unions of objects, pipes), with literal values seen. */
function fieldsOf(schema: z.ZodType | undefined, fields = new Map<string, unknown[]>()) {
  const def = (schema as { def?: Record<string, unknown> } | undefined)?.def;
  if (!def) return fields;
  if (def.type === "object")
    for (const [name, field] of Object.entries(def.shape as Record<string, z.ZodType>)) {
      const values = fields.get(name) ?? [];
      const fieldDef = (field as unknown as { def: Record<string, unknown> }).def;
      if (fieldDef.type === "literal") values.push(...(fieldDef.values as unknown[]));
      if (fieldDef.type === "enum") values.push(...Object.values(fieldDef.entries as object));
      fields.set(name, values);
    }
  for (const option of (def.options as z.ZodType[] | undefined) ?? []) fieldsOf(option, fields);
  for (const key of ["in", "innerType", "schema"] as const)
    if (def[key]) fieldsOf(def[key] as z.ZodType, fields);
  return fields;
}

/** Objects shaped like the operation's input: its field names with odd (or valid literal) values. */
function shaped(schema: z.ZodType | undefined) {
  const fields = fieldsOf(schema);
  if (fields.size === 0)
    return fc.dictionary(fc.string({ maxLength: 8 }), anyValue, { maxKeys: 4 });
  const names = [...fields.keys()];
  return fc.uniqueArray(fc.constantFrom(...names), { maxLength: names.length }).chain((chosen) =>
    fc
      .tuple(
        ...chosen.map((name) => {
          const known = fields.get(name) ?? [];
          return known.length > 0 ? fc.oneof(fc.constantFrom(...known), anyValue) : anyValue;
        }),
      )
      .map((values) => Object.fromEntries(chosen.map((name, i) => [name, values[i]]))),
  );
}

/** `encodeURIComponent`, except that a lone surrogate goes out as its (invalid) UTF-8 bytes. */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return "%ED%A0%80";
  }
}

const rawSegment = fc.constantFrom(
  "%00",
  "%ff",
  "%",
  "%zz",
  "%2e%2e",
  "%2F",
  "a%20b",
  "x".repeat(3000),
);
const bodyText = (op: Operation) =>
  fc.oneof(
    shaped(op.body).map((value) => JSON.stringify(value)),
    anyValue.map((value) => JSON.stringify(value) ?? "null"),
    fc.integer({ min: 60, max: 3000 }).map((n) => "[".repeat(n) + "]".repeat(n)),
    fc.integer({ min: 60, max: 3000 }).map((n) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`),
    fc.constantFrom(
      "",
      "not json",
      "{",
      '{"content":"a\\u0000b"}',
      '{"content":"\\ud800"}',
      '{"type":"text","content":"\\udfff"}',
      "1e999",
      "9".repeat(500),
      "\u0000",
      "null",
      '"text"',
    ),
  );
const contentType = fc.constantFrom(
  undefined,
  "application/json",
  "application/json; charset=utf-8",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=zz",
);

/** Never a 5xx (but the spec's own), always JSON: the envelope with a known code, or the success shape. */
function expectWellFormed(op: Operation | null, answer: RawAnswer, request: string) {
  const where = `${request} → ${answer.status} ${answer.text.slice(0, 300)}`;
  if (op && answer.status < 300 && !("parse" in op.response)) return; // audio bytes
  // A path with an empty segment or a trailing slash is redirected to its clean form.
  if (answer.status === 308) {
    expect(String(answer.headers.location), where).toMatch(/^\/api(\/|$)/);
    return;
  }
  // OPTIONS is answered by the framework with what the path allows.
  if (answer.status === 204 && request.startsWith("OPTIONS ")) {
    expect(answer.headers.allow, where).toBeTruthy();
    return;
  }
  let json: unknown;
  try {
    json = JSON.parse(answer.text);
  } catch {
    throw new Error(`not JSON: ${where}`);
  }
  if (answer.status >= 400) {
    const error = ApiError.safeParse(json);
    expect(error.success, `not the error envelope: ${where}`).toBe(true);
    if (answer.status >= 500)
      expect(SPEC_SERVER_CODES.has(error.data?.error.code ?? ""), `server error: ${where}`).toBe(
        true,
      );
  } else {
    expect(answer.status, where).toBeGreaterThanOrEqual(200);
    if (op && "parse" in op.response)
      expect((op.response as z.ZodType).safeParse(json).success, `success shape: ${where}`).toBe(
        true,
      );
  }
}

const operations = Object.values(ops) as Operation[];
const everyScope = [...agentScopes] as AgentScope[];

async function credentials(op: Operation) {
  if (op.surface === "dev") {
    const developer = await newDeveloper();
    return { headers: developer.auth, ids: {} as Record<string, string> };
  }
  const contact = await newContact({ scopes: everyScope, grant: everyScope });
  return { headers: contact.auth, ids: { conversationId: contact.conversationId } };
}

for (const op of operations) {
  test(`fuzz ${op.method} ${op.path} (${op.operationId}): never a 5xx, always the envelope`, async ({
    baseURL,
  }) => {
    test.slow();
    const { headers, ids } = await credentials(op);
    const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
    const param = (name: string) =>
      fc.oneof(
        { weight: 2, arbitrary: fc.constant(ids[name] ?? "unknown_id") },
        { weight: 1, arbitrary: anyText.map(encode) },
        { weight: 1, arbitrary: rawSegment },
      );
    const queryKeys = [...fieldsOf(op.query).keys()];
    const query = fc.dictionary(
      queryKeys.length > 0
        ? fc.oneof(fc.constantFrom(...queryKeys), fc.string({ maxLength: 6 }))
        : fc.string({ maxLength: 6 }),
      fc.oneof(anyText.map(encode), rawSegment),
      { maxKeys: 3 },
    );
    const withBody = op.method !== "GET";
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(...names.map(param)),
        query,
        withBody ? bodyText(op) : fc.constant(undefined),
        contentType,
        async (values, queryValues, body, type) => {
          let path = `/api${op.path}`;
          names.forEach((name, i) => {
            path = path.replace(`{${name}}`, values[i] as string);
          });
          const search = Object.entries(queryValues)
            .map(([key, value]) => `${encode(key)}=${value}`)
            .join("&");
          if (search) path += `?${search}`;
          const sent = { ...headers, ...(type && { "Content-Type": type }) };
          const answer = await rawRequest(baseURL as string, op.method, path, sent, body);
          expectWellFormed(op, answer, `${op.method} ${path} ${body?.slice(0, 200) ?? ""}`);
        },
      ),
      { numRuns, seed, endOnFailure: false },
    );
  });
}

const templates = [...new Set(operations.map((op) => op.path))];

test("methods a path does not have, and odd ones, get the envelope", async ({ baseURL }) => {
  const agent = await newContact();
  for (const template of templates) {
    const path = `/api${template.replace(/\{\w+\}/g, "x1")}`;
    const own = new Set(operations.filter((op) => op.path === template).map((op) => op.method));
    for (const method of [
      "GET",
      "POST",
      "PUT",
      "PATCH",
      "DELETE",
      "OPTIONS",
      "TRACE",
      "PROPFIND",
      "FOO",
    ]) {
      if (own.has(method as Operation["method"])) continue;
      const answer = await rawRequest(baseURL as string, method, path, agent.auth);
      expectWellFormed(null, answer, `${method} ${path}`);
      if (method !== "OPTIONS")
        expect(answer.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
    }
  }
});

test("paths no operation has get the envelope", async ({ baseURL }) => {
  test.slow();
  const agent = await newContact();
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom("/api/agent/v1/", "/api/v1/", "/api/agent/", "/api/"),
      fc.array(fc.oneof(anyText.map(encode), rawSegment), { minLength: 1, maxLength: 4 }),
      fc.constantFrom("GET", "POST", "DELETE"),
      async (base, segments, method) => {
        const path = base + segments.join("/");
        // Dot segments can climb out of /api: that is a console page, not an API answer. The
        // server merges repeated slashes first (`/api//../` is `/`), so the check does too.
        const resolved = new URL(path.replace(/\/{2,}/g, "/"), "http://x").pathname;
        if (!resolved.replace(/%2e/gi, ".").startsWith("/api/")) return;
        if (
          operations.some((op) =>
            new RegExp(`^/api${op.path.replace(/\{\w+\}/g, "[^/]+")}$`).test(path),
          )
        )
          return;
        const answer = await rawRequest(baseURL as string, method, path, agent.auth);
        expectWellFormed(null, answer, `${method} ${path}`);
        if (answer.status !== 308)
          expect(answer.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
      },
    ),
    { numRuns: numRuns * 4, seed, endOnFailure: false },
  );
});

/** Procedures of the console's tRPC router, for paths that reach a real one. */
const procedures = [
  "auth.me",
  "auth.signUp",
  "agents.list",
  "agents.create",
  "chats.send",
  "chats.markRead",
  "inbox.send",
  "records.create",
  "live.changes",
  "instance.status",
];
const consolePath = fc.oneof(
  fc
    .array(fc.oneof(fc.constantFrom(...procedures), anyText.map(encode), rawSegment), {
      minLength: 1,
      maxLength: 12,
    })
    .chain((calls) =>
      fc
        .option(anyValue.map((input) => encode(JSON.stringify({ 0: { json: input } }))))
        .map(
          (input) =>
            `/api/trpc/${calls.join(",")}${calls.length > 1 || input ? `?batch=1&input=${input ?? "{}"}` : ""}`,
        ),
    ),
  fc
    .oneof(
      fc.constantFrom(
        "csrf",
        "session",
        "providers",
        "signin",
        "signin/credentials",
        "callback/credentials",
        "signout",
        "error?error=Configuration",
        "_log",
      ),
      anyText.map(encode),
      rawSegment,
    )
    .map((rest) => `/api/auth/${rest}`),
  fc.oneof(anyText.map(encode), rawSegment).map((id) => `/api/console/media/${id}`),
  fc
    .oneof(
      fc.constantFrom("constructor", "__proto__", "toString", "hasOwnProperty", "swagger-ui.css"),
      anyText.map(encode),
      rawSegment,
    )
    .map((file) => `/docs/assets/${file}`),
  fc.constantFrom("/docs", "/docs/quickstart", "/signin", "/signup", "/chats"),
);
const oddHost = fc.constantFrom("a:b:c", "[::1]:x", "evil.example", "x".repeat(300), "a b", "u@h");
const oddHeaders = fc.record(
  {
    Host: oddHost,
    "X-Forwarded-Host": fc.oneof(oddHost, fc.constant("evil.example, b")),
    "X-Forwarded-Proto": fc.constantFrom("https", "http", "gopher", "a:b", "https, http"),
    "X-Forwarded-For": fc.constantFrom("::1", "garbage", "1.2.3.4, x", "[::1]:x"),
    "X-Forwarded-Port": fc.constantFrom("99999", "x"),
    Origin: fc.constantFrom("null", "http://evil.example", "a:b:c", "http://[::1]:x"),
    "Content-Type": fc.constantFrom(
      "application/json",
      "application/x-www-form-urlencoded",
      "text/plain",
      "multipart/form-data; boundary=zz",
      "application/json; charset=latin1",
    ),
  },
  { requiredKeys: [] },
);
const consoleBody = fc.oneof(
  anyValue.map((value) => JSON.stringify(value) ?? "null"),
  anyValue.map((value) => JSON.stringify({ 0: { json: value } })),
  fc.constantFrom(
    "not json",
    "{",
    "email=a%00&password=x",
    "email=a%40b.example&password=%00&csrfToken=x&json=true",
    "\u0000",
    "1e999",
    '{"email":"a\u0000","password":"x"}',
  ),
);
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** What an answer must never carry: an internal error's text, a query, a stack. */
const INTERNALS =
  /Failed query|rate_counters|Invalid URL|DrizzleQueryError|PostgresError|at \/|\.ts:\d/;

test("console routes (tRPC, /api/auth, /api/console, /docs) with odd headers: never a 5xx, never internals", async ({
  baseURL,
}) => {
  test.slow();
  const { cookie } = await consoleSession(baseURL as string);
  await fc.assert(
    fc.asyncProperty(
      consolePath,
      oddHeaders,
      fc.boolean(),
      fc.constantFrom("GET", "POST"),
      consoleBody,
      async (path, headers, signedIn, method, body) => {
        const sent: Record<string, string> = { ...headers, ...(signedIn && { Cookie: cookie }) };
        const answer = await rawRequest(
          baseURL as string,
          method,
          path,
          sent,
          method === "POST" ? body : undefined,
        );
        const where = `${method} ${path} ${JSON.stringify(headers)} → ${answer.status} ${answer.text.slice(0, 300)}`;
        expect(answer.status, where).toBeGreaterThanOrEqual(200);
        expect(answer.status, where).toBeLessThan(500);
        expect(answer.text, where).not.toMatch(INTERNALS);
        const location = String(answer.headers.location ?? "");
        expect(safeDecode(location), where).not.toMatch(INTERNALS);
        // No proxy is trusted here: a forwarded host never becomes where a redirect goes.
        if (headers["X-Forwarded-Host"] && !headers.Host)
          expect(location, where).not.toContain("evil.example");
      },
    ),
    { numRuns: numRuns * 4, seed, endOnFailure: false },
  );
  const after = await rawRequest(baseURL as string, "GET", "/api/healthz");
  expect(after.status).toBe(200);
});

/** next-auth's endpoints, every one the console can reach. */
const authEndpoints = fc.constantFrom(
  "csrf",
  "session",
  "providers",
  "signin",
  "signin/credentials",
  "callback/credentials",
  "signout",
  "error",
  "verify-request",
  "_log",
);
/** The fields next-auth reads from a body or query, and some it does not. */
const authField = fc.constantFrom(
  "callbackUrl",
  "csrfToken",
  "email",
  "password",
  "json",
  "redirect",
  "error",
  "__proto__",
);
const callbackText = fc.oneof(
  anyText,
  fc.constantFrom(
    "/chats",
    "b",
    "//evil.example",
    "/\\evil.example",
    "http://localhost/x",
    "javascript:x",
  ),
);
const authInput = fc.dictionary(authField, fc.oneof(callbackText, anyValue), { maxKeys: 5 });
const authBody = fc.oneof(
  authInput.map((fields) => ({ type: "application/json", body: JSON.stringify(fields) })),
  authInput.map((fields) => ({
    type: "application/x-www-form-urlencoded",
    body: Object.entries(fields)
      .map(
        ([name, value]) =>
          `${encode(name)}=${encode(typeof value === "string" ? value : (JSON.stringify(value) ?? ""))}`,
      )
      .join("&"),
  })),
);
const authQuery = fc.dictionary(
  fc.constantFrom("callbackUrl", "error", "csrf", "json"),
  callbackText,
  {
    maxKeys: 3,
  },
);
const authCookie = fc.option(
  fc.record({
    name: fc.constantFrom(
      "next-auth.callback-url",
      "__Secure-next-auth.callback-url",
      "next-auth.csrf-token",
    ),
    value: callbackText,
  }),
);
/** What a Location header may hold: printable ASCII, no quote or space (all percent-encoded). */
const ENCODED_URL = /^[\x21\x23-\x26\x28-\x7e]*$/;

test("next-auth's endpoints with odd JSON and form bodies, queries and cookies: never a 5xx, Location always encoded", async ({
  baseURL,
}) => {
  test.slow();
  await fc.assert(
    fc.asyncProperty(
      authEndpoints,
      authQuery,
      authCookie,
      fc.constantFrom("GET", "POST"),
      authBody,
      async (endpoint, query, cookie, method, { type, body }) => {
        const search = Object.entries(query)
          .map(([name, value]) => `${name}=${encode(value)}`)
          .join("&");
        const path = `/api/auth/${endpoint}${search ? `?${search}` : ""}`;
        const headers: Record<string, string> = { "Content-Type": type };
        if (cookie) headers.Cookie = `${cookie.name}=${encode(cookie.value)}`;
        const answer = await rawRequest(
          baseURL as string,
          method,
          path,
          headers,
          method === "POST" ? body : undefined,
        );
        const where = `${method} ${path} ${headers.Cookie ?? ""} ${method === "POST" ? body : ""} → ${answer.status} ${answer.text.slice(0, 300)}`;
        expect(answer.status, where).toBeLessThan(500);
        expect(answer.text, where).not.toMatch(INTERNALS);
        const location = answer.headers.location;
        if (location !== undefined) expect(String(location), where).toMatch(ENCODED_URL);
      },
    ),
    { numRuns: numRuns * 8, seed, endOnFailure: false },
  );
  const after = await rawRequest(baseURL as string, "GET", "/api/healthz");
  expect(after.status).toBe(200);
});

test("bytes that are not HTTP, and oversized headers, get the envelope and leave the service up", async ({
  baseURL,
}) => {
  const { port } = new URL(baseURL as string);
  const exchange = (bytes: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), "127.0.0.1", () => socket.end(bytes));
      const chunks: Buffer[] = [];
      socket.on("data", (chunk) => chunks.push(chunk));
      socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")));
      socket.on("error", reject);
    });
  const cases = [
    ["NOT A REQUEST\r\n\r\n", 400, "malformed_request"],
    [
      "GET /api/agent/v1/me HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
      400,
      "malformed_request",
    ],
    [
      `GET /api/agent/v1/me HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(64 * 1024)}\r\n\r\n`,
      431,
      "headers_too_large",
    ],
    [
      "TRACE /api/agent/v1/me HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
      405,
      "method_not_allowed",
    ],
    ["TRACE /chats HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", 405, "method_not_allowed"],
  ] as const;
  for (const [bytes, status, code] of cases) {
    const answer = await exchange(bytes);
    const [head = "", body = ""] = answer.split("\r\n\r\n");
    expect(head.split(" ")[1], bytes.slice(0, 40)).toBe(String(status));
    expect(ApiError.parse(JSON.parse(body)).error.code).toBe(code);
  }
  const after = await rawRequest(baseURL as string, "GET", "/api/healthz");
  expect(after.status).toBe(200);
});
