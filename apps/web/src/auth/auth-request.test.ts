import { type CoreDeps, captureLogs, createUser } from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provideDeps } from "~/server/deps";
import { AUTH_BODY_BYTES, isCallbackUrl, readAuthRequest } from "./auth-request";
import { authLogger, getAuthOptions, SIGN_IN_FAILED, signInInput } from "./options";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps({ env: { AUTH_SECRET: "x".repeat(32) } });
  provideDeps(t.deps);
});
afterAll(() => t.close());

function counted(bytes: number) {
  const pulled = { bytes: 0 };
  let left = bytes;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (left <= 0) return controller.close();
      const size = Math.min(16 * 1024, left);
      left -= size;
      pulled.bytes += size;
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
  });
  return { stream, pulled };
}

const post = (body: BodyInit, type: string) =>
  new NextRequest("http://localhost/api/auth/callback/credentials", {
    method: "POST",
    headers: { "Content-Type": type },
    body,
    duplex: "half",
  } as ConstructorParameters<typeof NextRequest>[1]);

describe("readAuthRequest", () => {
  it("refuses a body over a few KB with 413 while it streams in", async () => {
    const { stream, pulled } = counted(100 * 1024 * 1024);
    const answer = await readAuthRequest(post(stream, "application/x-www-form-urlencoded"));
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).status).toBe(413);
    expect(await (answer as Response).json()).toMatchObject({
      error: { code: "payload_too_large" },
    });
    expect(pulled.bytes).toBeLessThanOrEqual(AUTH_BODY_BYTES + 64 * 1024);
  });

  it("answers 400 for a body that claims JSON and is not a JSON object", async () => {
    for (const body of ["{not json", "12", "null", "[]", ""]) {
      const answer = await readAuthRequest(post(body, "application/json"));
      expect((answer as Response).status).toBe(400);
      expect(await (answer as Response).json()).toMatchObject({
        error: { code: "validation_error" },
      });
    }
  });

  it("hands next-auth a readable copy of a form it can take", async () => {
    const answer = await readAuthRequest(
      post("email=a%40b.example&password=x&csrfToken=t", "application/x-www-form-urlencoded"),
    );
    expect(answer).toBeInstanceOf(NextRequest);
    expect(await (answer as NextRequest).text()).toBe("email=a%40b.example&password=x&csrfToken=t");
  });
});

describe("readAuthRequest's checks of what next-auth would fail on", () => {
  const get = (path: string, headers: Record<string, string> = {}) =>
    new NextRequest(`http://localhost/api/auth/${path}`, { headers });
  const refusedWith = async (answer: NextRequest | Response, path: string) => {
    expect(answer).toBeInstanceOf(Response);
    expect((answer as Response).status).toBe(400);
    const body = await (answer as Response).json();
    expect(body.error.code).toBe("validation_error");
    expect(body.error.issues[0].path).toBe(path);
  };

  it("refuses a body value that is not text, and a callback URL that is not one (400)", async () => {
    for (const body of ['{"callbackUrl":{"a":1}}', '{"csrfToken":["x"]}', '{"json":true}'])
      await refusedWith(
        await readAuthRequest(post(body, "application/json"), ["callback", "credentials"]),
        Object.keys(JSON.parse(body))[0] as string,
      );
    for (const form of ["callbackUrl=b", "callbackUrl=%2F%2Fevil.example", "callbackUrl=%2Fa%00"])
      await refusedWith(
        await readAuthRequest(post(form, "application/x-www-form-urlencoded"), ["signout"]),
        "callbackUrl",
      );
  });

  it("refuses an odd callbackUrl or error in the query, and odd path segments", async () => {
    await refusedWith(
      await readAuthRequest(get("session?callbackUrl=b"), ["session"]),
      "callbackUrl",
    );
    await refusedWith(await readAuthRequest(get("error?error=%00"), ["error"]), "error");
    await refusedWith(
      await readAuthRequest(get("error?error=%27%20OR%201%3D1--"), ["error"]),
      "error",
    );
    await refusedWith(await readAuthRequest(get("error/%27%20OR"), ["error", "' OR"]), "path");
    await refusedWith(await readAuthRequest(get("signin/%00"), ["signin", "\u0000"]), "path");
    // What next-auth's own pages send passes.
    for (const [path, segments] of [
      ["error?error=CredentialsSignin", ["error"]],
      ["session?callbackUrl=%2Fchats", ["session"]],
      ["signin?callbackUrl=http%3A%2F%2Flocalhost%2Fchats", ["signin"]],
    ] as const)
      expect(await readAuthRequest(get(path), segments)).toBeInstanceOf(NextRequest);
  });

  it("answers a bad callback-url cookie with 400 and clears it", async () => {
    const answer = await readAuthRequest(get("session", { Cookie: "next-auth.callback-url=b" }), [
      "session",
    ]);
    await refusedWith(answer, "cookie.next-auth.callback-url");
    expect((answer as Response).headers.get("set-cookie")).toMatch(
      /^next-auth\.callback-url=; Path=\/; Max-Age=0/,
    );
    const good = get("session", { Cookie: "next-auth.callback-url=http%3A%2F%2Flocalhost%2F" });
    expect(await readAuthRequest(good, ["session"])).toBeInstanceOf(NextRequest);
  });

  it("takes paths and http(s) URLs as callback URLs, nothing else", () => {
    for (const url of ["/", "/chats?x=1", "http://localhost:3000/a", "https://c.example"])
      expect(isCallbackUrl(url), url).toBe(true);
    for (const url of [
      "b",
      "//evil.example",
      "/\\evil.example",
      "javascript:alert(1)",
      "/a b",
      "/\u0000",
      { a: 1 },
      "",
    ])
      expect(isCallbackUrl(url), String(url)).toBe(false);
  });
});

describe("sign-in input", () => {
  it("is refused before any query when it could not be an account's", () => {
    expect(signInInput({ email: "a@b.example", password: "pw" })).toEqual({
      email: "a@b.example",
      password: "pw",
    });
    for (const credentials of [
      { email: "a\u0000", password: "pw" },
      { email: "a\u0000@b.example", password: "pw" },
      { email: "a@b.example", password: "p\u0000w" },
      { email: "a@b.example", password: "\ud800" },
      { email: `${"a".repeat(320)}@b.example`, password: "pw" },
      { email: "a@b.example", password: "" },
      { email: ["a@b.example"], password: "pw" },
      undefined,
    ])
      expect(signInInput(credentials as Record<string, unknown> | undefined)).toBeNull();
  });

  async function authorize(credentials: Record<string, string>) {
    const options = await getAuthOptions();
    const provider = options.providers[0] as unknown as {
      options: { authorize: (c: unknown, req: unknown) => Promise<unknown> };
    };
    return provider.options.authorize(credentials, { headers: {} });
  }

  it("fails like a wrong password for NUL in the email, with no query run", async () => {
    const lines: string[] = [];
    const restore = captureLogs(lines);
    try {
      await expect(authorize({ email: "a\u0000", password: "pw" })).resolves.toBeNull();
    } finally {
      restore();
    }
    expect(lines.join("")).not.toMatch(/Failed query|rate_counters/);
  });

  it("never lets an internal error's text out (next-auth would put it in a URL): a generic message, logged", async () => {
    const user = await createUser(t.deps, {});
    expect(user).toBeDefined();
    const broken = new Proxy(t.deps, {
      get(target, key) {
        if (key === "db") throw new Error('Failed query: insert into "rate_counters" params: x');
        return Reflect.get(target, key);
      },
    }) as CoreDeps;
    const lines: string[] = [];
    const restore = captureLogs(lines);
    provideDeps(broken);
    try {
      const failed = await authorize({ email: "a@b.example", password: "pw" }).catch(
        (error: Error) => error,
      );
      expect((failed as Error).message).toBe(SIGN_IN_FAILED);
    } finally {
      provideDeps(t.deps);
      restore();
    }
    expect(lines.some((line) => line.includes("sign-in failed"))).toBe(true);
  });
});

describe("next-auth's logger", () => {
  it("writes through pino, with the error described", () => {
    const lines: string[] = [];
    const restore = captureLogs(lines);
    try {
      authLogger.error?.("JWT_SESSION_ERROR", { error: new Error("bad token"), message: "x" });
      authLogger.warn?.("NO_SECRET");
    } finally {
      restore();
    }
    const logged = lines.map((line) => JSON.parse(line));
    expect(logged).toContainEqual(
      expect.objectContaining({ level: 50, code: "JWT_SESSION_ERROR", msg: "next-auth error" }),
    );
    expect(logged[0].err).toMatch(/bad token/);
    expect(logged).toContainEqual(expect.objectContaining({ level: 40, code: "NO_SECRET" }));
  });
});

describe("/api/auth/callback/credentials by GET", () => {
  it("is 405 with Allow: POST (next-auth itself answers 500)", async () => {
    const { GET } = await import("../../app/api/auth/[...nextauth]/route");
    const answer = await GET(new NextRequest("http://localhost/api/auth/callback/credentials"), {
      params: Promise.resolve({ nextauth: ["callback", "credentials"] }),
    });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("Allow")).toBe("POST");
  });
});
