import "server-only";
import { findUnstorableText } from "@switchboard/contract";
import {
  authSecret,
  CoreError,
  endConsoleSession,
  log,
  newConsoleSessionId,
  verifyCredentials,
} from "@switchboard/core";
import { describeError } from "@switchboard/db";
import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { z } from "zod";
import { clientNetwork } from "~/server/client-network";
import { getDeps } from "~/server/deps";

/** Who is signed in to the console, as the session carries it. */
export interface SessionUser {
  id: string;
  num: string;
  name: string | null;
  /** This sign-in's id, ended server-side at sign-out. */
  sessionId?: string;
}

const SESSION_MAX_AGE_S = 30 * 24 * 3600;

/** When a session signed in at `started` (unix seconds) ends, in epoch milliseconds. */
const sessionEnd = (started: number) => (started + SESSION_MAX_AGE_S) * 1000;

/**
 * Whether the operator pinned the console's public URL (`PUBLIC_URL`, or next-auth's own
 * NEXTAUTH_URL). Without one next-auth v4 assumes http://localhost:3000 unless AUTH_TRUST_HOST
 * is set, and would send every redirect there. The web app's edge settles the origin headers of
 * every request before next-auth reads them (`settleOriginHeaders`: PUBLIC_URL, else Host, with
 * forwarded headers only from trusted proxies), so next-auth may trust them.
 */
// biome-ignore lint/style/noProcessEnv: read once; the config schema checks PUBLIC_URL too.
const pinnedUrl = process.env.PUBLIC_URL || process.env.NEXTAUTH_URL;
const publicUrlPinned = Boolean(pinnedUrl);
// biome-ignore lint/style/noProcessEnv: next-auth's own switch, read from the environment only.
process.env.AUTH_TRUST_HOST ??= "true";

/** The host (and port) of the pinned public URL, when there is one. */
export const pinnedHost = (() => {
  try {
    return pinnedUrl ? new URL(pinnedUrl).host : undefined;
  } catch {
    return undefined;
  }
})();

/**
 * The host (and port) a request was made to: the settled forwarded host (see `pinnedUrl`), else
 * its Host.
 */
export function requestHost(headers: Headers): string | undefined {
  return (
    (headers.get("x-forwarded-host") ?? headers.get("host"))?.split(",")[0]?.trim() || undefined
  );
}

/** The origin a request was made to: the proxy's forwarded host and protocol, else its Host. */
export function requestOrigin(headers: Headers): string | undefined {
  const host = requestHost(headers);
  if (!host) return undefined;
  const proto = headers.get("x-forwarded-proto")?.split(",")[0]?.trim();
  return `${proto === "https" ? "https" : "http"}://${host}`;
}

/**
 * next-auth's redirect rule against `origin`: a path or a URL on `origin` stays; anything else
 * (another site, a protocol-relative `//host`) goes to `origin`'s root, so callbackUrl cannot
 * send a person off-site. The answer is percent-encoded: it goes into `Location`.
 */
export function sameOriginRedirect(url: string, origin: string): string {
  try {
    if (url.startsWith("/") && !/^\/[/\\]/.test(url)) return new URL(`${origin}${url}`).href;
    const absolute = new URL(url);
    if (absolute.origin === origin) return absolute.href;
  } catch {
    // not a URL: fall through to the root
  }
  return origin;
}

/** What a sign-in error that is not the person's says (no internal text leaves the server). */
export const SIGN_IN_FAILED = "Signing in failed. Try again in a moment.";

const SignInInput = z.object({
  email: z.string().trim().max(320).pipe(z.email()),
  password: z.string().min(1).max(1024),
});

/**
 * The sign-in form's email and password, or null when they could not be an account's (no
 * email, too long, NUL or lone surrogates): such a sign-in fails like a wrong password, before
 * any query or limit counter sees it.
 */
export function signInInput(
  credentials: Record<string, unknown> | undefined,
): { email: string; password: string } | null {
  const parsed = SignInInput.safeParse(credentials ?? {});
  if (!parsed.success || findUnstorableText(parsed.data).length > 0) return null;
  return parsed.data;
}

/**
 * next-auth's logger, into the service's one (pino): codes and described errors, never
 * next-auth's own console lines. Its NEXTAUTH_URL warning is moot (see `pinnedUrl`).
 */
export const authLogger: NonNullable<AuthOptions["logger"]> = {
  error(code, metadata) {
    const cause =
      metadata instanceof Error ? metadata : (metadata as { error?: unknown } | undefined)?.error;
    log.error({ code, err: cause ? describeError(cause) : undefined }, "next-auth error");
  },
  warn(code) {
    if (code !== "NEXTAUTH_URL") log.warn({ code }, "next-auth warning");
  },
  debug(code) {
    log.debug({ code }, "next-auth debug");
  },
};

function buildAuthOptions(secret: string, origin: string | undefined): AuthOptions {
  return {
    secret,
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_S },
    // next-auth's own error page answers 500 for some errors (`?error=Configuration`): anyone
    // could fetch it. Errors go to the sign-in page instead.
    pages: { signIn: "/signin", error: "/signin" },
    logger: authLogger,
    events: {
      // The cookie goes from this browser; the session ends everywhere (a copy of the cookie
      // saved before now no longer works). A failure is logged by next-auth (SIGNOUT_ERROR).
      async signOut({ token }) {
        if (!token?.sub || !token.sid || !token.started) return;
        const expiresAt = new Date(sessionEnd(token.started));
        await endConsoleSession(getDeps(), { userId: token.sub, sessionId: token.sid, expiresAt });
      },
    },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: {
          email: { label: "Email", type: "email" },
          password: { label: "Password", type: "password" },
        },
        async authorize(credentials, req) {
          // Checked before any query: what could not be an account's email never reaches one.
          const input = signInInput(credentials);
          if (!input) return null;
          const deps = getDeps();
          const network = clientNetwork(
            new Headers(req.headers as Record<string, string>),
            deps.config.TRUSTED_PROXIES,
          );
          const user = await verifyCredentials(deps, input.email, input.password, {
            network,
          }).catch((error) => {
            // next-auth puts a thrown message in the error page's URL: only our own words go
            // there. The sign-in page shows the limit's message ("Too many … Try again in 5
            // minutes."); anything else is logged and answered with a generic one.
            if (error instanceof CoreError && error.code === "rate_limited")
              throw new Error(error.message);
            log.error({ err: describeError(error) }, "sign-in failed");
            throw new Error(SIGN_IN_FAILED);
          });
          return user ? { id: user.id, name: user.displayName, num: user.num } : null;
        },
      }),
    ],
    callbacks: {
      // At sign-in `user` is what `authorize` answered; afterwards the token carries it alone.
      jwt({ token, user }) {
        if (user) {
          token.sub = user.id;
          token.num = user.num;
          token.sid = newConsoleSessionId();
          token.started = Math.floor(Date.now() / 1000);
        }
        return token;
      },
      session({ session, token }) {
        return {
          ...session,
          user: {
            id: token.sub ?? "",
            num: token.num ?? "",
            name: token.name ?? null,
            // A session lasts SESSION_MAX_AGE_S from sign-in however often it is refreshed,
            // so a signed-out session's record can be dropped once that time has passed.
            sessionId:
              token.started && sessionEnd(token.started) > Date.now() ? token.sid : undefined,
          },
        };
      },
      redirect({ url, baseUrl }) {
        return sameOriginRedirect(url, origin ?? baseUrl);
      },
    },
  };
}

/**
 * next-auth's options, built per call over the one cached secret. Pass the request when
 * next-auth will redirect (its route handler): redirects then stay on the host the person used.
 */
export async function getAuthOptions(request?: { headers: Headers }): Promise<AuthOptions> {
  const origin = request && !publicUrlPinned ? requestOrigin(request.headers) : undefined;
  return buildAuthOptions(authSecret(getDeps()), origin);
}
