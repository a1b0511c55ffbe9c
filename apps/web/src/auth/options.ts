import "server-only";
import { CoreError, ensureAuthSecret, verifyCredentials } from "@switchboard/core";
import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getDeps } from "~/server/deps";

/** Who is signed in to the console, as the session carries it. */
export interface SessionUser {
  id: string;
  num: string;
  name: string | null;
}

const SESSION_MAX_AGE_S = 30 * 24 * 3600;

/**
 * Whether the operator pinned the console's public URL. next-auth v4 reads NEXTAUTH_URL itself;
 * without it (and without AUTH_TRUST_HOST) it assumes http://localhost:3000 and would send every
 * redirect there. The console then trusts the host the request came to instead, as Auth.js's
 * `trustHost` does, so sign-in and sign-out work on any host and port.
 */
// biome-ignore lint/style/noProcessEnv: next-auth's own variable; read here only to know it is set.
const publicUrlPinned = Boolean(process.env.NEXTAUTH_URL);

/** The origin a request was made to: the proxy's forwarded host and protocol, else its Host. */
export function requestOrigin(headers: Headers): string | undefined {
  const host = (headers.get("x-forwarded-host") ?? headers.get("host"))?.split(",")[0]?.trim();
  if (!host) return undefined;
  const proto = headers.get("x-forwarded-proto")?.split(",")[0]?.trim();
  return `${proto === "https" ? "https" : "http"}://${host}`;
}

/**
 * next-auth's redirect rule against `origin`: a path or a URL on `origin` stays; anything else
 * (another site, a protocol-relative `//host`) goes to `origin`'s root, so callbackUrl cannot
 * send a person off-site.
 */
export function sameOriginRedirect(url: string, origin: string): string {
  if (url.startsWith("/") && !url.startsWith("//")) return `${origin}${url}`;
  try {
    if (new URL(url).origin === origin) return url;
  } catch {
    // not a URL: fall through to the root
  }
  return origin;
}

function buildAuthOptions(secret: string, origin: string | undefined): AuthOptions {
  return {
    secret,
    session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_S },
    pages: { signIn: "/signin" },
    logger: {
      // Its NEXTAUTH_URL warning says redirects may go to the wrong host; the console's
      // `redirect` below already keeps them on the request's host.
      warn(code) {
        if (code !== "NEXTAUTH_URL") console.warn(`[next-auth][warn][${code}]`);
      },
    },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: {
          email: { label: "Email", type: "email" },
          password: { label: "Password", type: "password" },
        },
        async authorize(credentials) {
          if (!credentials?.email || !credentials.password) return null;
          const user = await verifyCredentials(
            getDeps(),
            credentials.email,
            credentials.password,
          ).catch((error) => {
            // The sign-in page shows this message as it is.
            if (error instanceof CoreError && error.code === "rate_limited")
              throw new Error(
                `Too many sign-in attempts for this email. Try again in ${Math.ceil(
                  (error.details.retryAfterSeconds ?? 60) / 60,
                )} minutes.`,
              );
            throw error;
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
        }
        return token;
      },
      session({ session, token }) {
        return {
          ...session,
          user: { id: token.sub ?? "", num: token.num ?? "", name: token.name ?? null },
        };
      },
      redirect({ url, baseUrl }) {
        return sameOriginRedirect(url, origin ?? baseUrl);
      },
    },
  };
}

/**
 * The signing secret, looked up once per process: AUTH_SECRET, or the secret the instance keeps
 * in its database (core `ensureAuthSecret`), so every web process signs and reads the same
 * sessions. A failed lookup (database not up yet) is not cached: the next request tries again.
 */
let secret: Promise<string> | undefined;

function authSecret(): Promise<string> {
  secret ??= ensureAuthSecret(getDeps()).catch((error: unknown) => {
    secret = undefined;
    throw error;
  });
  return secret;
}

/**
 * next-auth's options, built per call over the one cached secret. Pass the request when
 * next-auth will redirect (its route handler): redirects then stay on the host the person used.
 */
export async function getAuthOptions(request?: { headers: Headers }): Promise<AuthOptions> {
  const origin = request && !publicUrlPinned ? requestOrigin(request.headers) : undefined;
  return buildAuthOptions(await authSecret(), origin);
}
