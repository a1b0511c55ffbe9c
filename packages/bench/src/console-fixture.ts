import { type Browser, type BrowserContext, chromium } from "@playwright/test";
import type { RunningService } from "@switchboard/cli/service";
import { type Clock, createDeps, loadConfig } from "@switchboard/core";
import { TEST_KEYS } from "@switchboard/core/testing";
import { createTestDatabase, dropDatabase, startTestDatabaseServer } from "@switchboard/db/testing";
import { consoleChromium } from "./chromium";

/**
 * What the console benchmark and the screenshots share: a fresh database with the service and
 * Chromium on it, and a person signed in the way the sign-in form does it.
 */

/**
 * A fresh database (on DATABASE_URL's server, or an embedded Postgres), core on it with
 * `config` (and `clock`), the service `start` starts on it, and Chromium launched as the
 * console's browser specs launch it. `stop` ends them all.
 */
export async function startConsoleRun(options: {
  config: Record<string, string>;
  poolSize: number;
  clock?: Clock;
  start: (databaseUrl: string) => Promise<RunningService>;
}) {
  const dbServer = await startTestDatabaseServer();
  const database = await createTestDatabase(dbServer);
  const { deps, close } = createDeps(
    loadConfig({ ...TEST_KEYS, DATABASE_URL: database.url, ...options.config }),
    { poolSize: options.poolSize, ...(options.clock && { clock: options.clock }) },
  );
  const service = await options.start(database.url);
  const browser = await chromium.launch(consoleChromium);
  return {
    deps,
    browser,
    /** The console's address (IPv4, as the other benchmarks reach the service). */
    base: service.webUrl.replace("localhost", "127.0.0.1"),
    async stop() {
      await browser.close();
      await service.stop();
      await close();
      await dropDatabase(dbServer.adminUrl, database.name);
      await dbServer.stop();
    },
  };
}

/**
 * Signs `email` in through next-auth's own endpoints, as the sign-in form does: a CSRF token
 * (and its cookie), then the credentials callback, which sets the session cookie. Answers the
 * cookies the console needs, as a Cookie header and one by one (for a browser context).
 */
export async function signIn(baseUrl: string, email: string, password: string) {
  const jar = new Map<string, string>();
  const keep = (response: Response) => {
    for (const cookie of response.headers.getSetCookie()) {
      const [pair = ""] = cookie.split(";");
      const at = pair.indexOf("=");
      jar.set(pair.slice(0, at), pair.slice(at + 1));
    }
  };
  const header = () => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
  const csrf = await fetch(`${baseUrl}/api/auth/csrf`);
  keep(csrf);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const answer = await fetch(`${baseUrl}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: header() },
    body: new URLSearchParams({ email, password, csrfToken, json: "true" }),
  });
  keep(answer);
  if (![...jar.keys()].some((name) => name.endsWith("session-token")))
    throw new Error(`sign-in as ${email} failed: ${answer.status} ${await answer.text()}`);
  return {
    header: header(),
    cookies: [...jar].map(([name, value]) => ({ name, value, url: baseUrl })),
  };
}

export type ConsoleSession = Awaited<ReturnType<typeof signIn>>;

/** A fresh browser context (empty cache), signed in with `session` when there is one. */
export async function newContext(
  browser: Browser,
  session: ConsoleSession | null,
  viewport = { width: 1280, height: 800 },
  colorScheme: "light" | "dark" = "light",
): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport, colorScheme });
  if (session) await context.addCookies(session.cookies);
  return context;
}
