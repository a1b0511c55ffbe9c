import { consoleSession } from "../support/console-session";
import { ownService } from "../support/own-service";
import { rawRequest } from "../support/raw-http";
import { expect, test } from "../support/test";

/**
 * The console's edge, on a running service (issue 22): what is read before anyone is known,
 * where the console's origin comes from, and odd path parameters. The shared service trusts no
 * proxy; one of this spec's own runs with PUBLIC_URL on https.
 */

const cookiesOf = (headers: Record<string, string | string[] | undefined>) =>
  ([] as string[])
    .concat(headers["set-cookie"] ?? [])
    .map((cookie) => cookie.split(";")[0])
    .join("; ");

test("sign-in with NUL in the email fails like a wrong password, with no query text anywhere", async ({
  baseURL,
}) => {
  const base = baseURL as string;
  const csrf = await rawRequest(base, "GET", "/api/auth/csrf");
  const { csrfToken } = JSON.parse(csrf.text) as { csrfToken: string };
  for (const json of ["true", "false"]) {
    const answer = await rawRequest(
      base,
      "POST",
      "/api/auth/callback/credentials",
      { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookiesOf(csrf.headers) },
      `email=a%00&password=x&csrfToken=${csrfToken}&json=${json}`,
    );
    expect(answer.status).toBeLessThan(500);
    const said = `${answer.text} ${decodeURIComponent(String(answer.headers.location ?? ""))}`;
    expect(said).toContain("CredentialsSignin");
    expect(said).not.toMatch(/query|rate_counters|signin:/i);
  }
});

test("/api/auth bodies: over a few KB 413, non-JSON sent as JSON 400", async ({ baseURL }) => {
  const base = baseURL as string;
  const big = await rawRequest(
    base,
    "POST",
    "/api/auth/callback/credentials",
    { "Content-Type": "application/x-www-form-urlencoded" },
    `email=${"a".repeat(200_000)}`,
  );
  expect(big.status).toBe(413);
  expect(JSON.parse(big.text)).toMatchObject({ error: { code: "payload_too_large" } });
  const lying = await rawRequest(
    base,
    "POST",
    "/api/auth/callback/credentials",
    { "Content-Type": "application/json" },
    "email=a&password=b",
  );
  expect(lying.status).toBe(400);
  expect(JSON.parse(lying.text)).toMatchObject({ error: { code: "validation_error" } });
});

test("tRPC: a signed-out 16 MB post is refused without being read; a batch over 10 calls is 400", async ({
  baseURL,
}) => {
  const base = baseURL as string;
  const started = Date.now();
  const answer = await rawRequest(
    base,
    "POST",
    "/api/trpc/chats.send",
    { "Content-Type": "application/json" },
    Buffer.alloc(16 * 1024 * 1024, 0x61),
  ).catch((error: Error) => ({ status: -1, text: error.message, headers: {} }));
  // Answered 401 (or the connection closed under the unread body), never read and parsed.
  expect([401, -1]).toContain(answer.status);
  expect(Date.now() - started).toBeLessThan(15_000);
  const { cookie } = await consoleSession(base);
  const calls = Array(11).fill("auth.me").join(",");
  const batch = await rawRequest(base, "GET", `/api/trpc/${calls}?batch=1&input={}`, {
    Cookie: cookie,
  });
  expect(batch.status).toBe(400);
  expect(batch.text).toContain("at most 10 calls");
  const ten = Array(10).fill("auth.me").join(",");
  expect(
    (await rawRequest(base, "GET", `/api/trpc/${ten}?batch=1&input={}`, { Cookie: cookie })).status,
  ).toBe(200);
});

test("odd path parameters: media %00 and docs assets named like Object's own are 404", async ({
  baseURL,
}) => {
  const base = baseURL as string;
  const { cookie } = await consoleSession(base);
  for (const id of ["%00", "msg_%00", "%2e%2e%00", "msg_A", "x".repeat(3000)]) {
    const answer = await rawRequest(base, "GET", `/api/console/media/${id}`, { Cookie: cookie });
    expect([400, 404], `${id}: ${answer.status}`).toContain(answer.status);
  }
  for (const file of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf"]) {
    const answer = await rawRequest(base, "GET", `/docs/assets/${file}`);
    expect(answer.status, file).toBe(404);
  }
});

test("a forwarded host is ignored with no trusted proxy; an odd Host is 400 on every surface", async ({
  baseURL,
}) => {
  const base = baseURL as string;
  for (const forwarded of ["evil.example", "a:b:c", "[::1]:x"]) {
    const answer = await rawRequest(base, "GET", "/api/auth/signin", {
      "X-Forwarded-Host": forwarded,
      "X-Forwarded-Proto": "https",
    });
    expect(answer.status, forwarded).toBeLessThan(500);
    expect(String(answer.headers.location ?? ""), forwarded).not.toMatch(/evil|a:b:c|\[::1\]:x/);
    expect(answer.headers["strict-transport-security"]).toBeUndefined();
  }
  for (const path of ["/signin", "/api/auth/session", "/api/trpc/auth.me", "/api/agent/v1/me"])
    for (const host of ["a:b:c", "[::1]:x"]) {
      const answer = await rawRequest(base, "GET", path, { Host: host });
      expect(answer.status, `${path} ${host}`).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({ error: { code: "malformed_request" } });
    }
});

test.describe("with PUBLIC_URL on https", () => {
  test.describe.configure({ mode: "serial" });
  const base = ownService("consoleEdge", { PUBLIC_URL: "https://console.example.com" });

  test("every answer has HSTS, and redirects go to the configured origin whatever the headers say", async () => {
    for (const path of ["/signin", "/api/healthz", "/api/auth/csrf", "/api/agent/v1/me"]) {
      const answer = await rawRequest(base, "GET", path);
      expect(answer.headers["strict-transport-security"], path).toBe("max-age=31536000");
    }
    const signin = await rawRequest(base, "GET", "/api/auth/signin", {
      "X-Forwarded-Host": "evil.example",
    });
    // Next writes a same-origin redirect as a path; the callback names the configured origin.
    const location = decodeURIComponent(String(signin.headers.location));
    expect(location).toMatch(
      /^(https:\/\/console\.example\.com)?\/signin\?callbackUrl=https:\/\/console\.example\.com/,
    );
    expect(location).not.toContain("evil");
  });

  test("/metrics answers on loopback; the API keeps its own policy", async () => {
    const metrics = await rawRequest(base, "GET", "/api/metrics");
    expect(metrics.status).toBe(200);
    const api = await rawRequest(base, "GET", "/api/agent/v1/me");
    expect(api.headers["content-security-policy"]).toBe(
      "default-src 'none'; frame-ancestors 'none'; sandbox",
    );
  });
});
