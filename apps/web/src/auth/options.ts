import "server-only";
import { ensureAuthSecret, verifyCredentials } from "@switchboard/core";
import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { getDeps } from "~/server/deps";

/** Who is signed in to the console, as the session carries it. */
export interface SessionUser {
  id: string;
  num: string;
  name: string | null;
}

let options: Promise<AuthOptions> | undefined;

/**
 * next-auth's options, built once per process: the signing secret is AUTH_SECRET or the one the
 * instance keeps in its database (so every web process signs and reads the same sessions).
 */
export function getAuthOptions(): Promise<AuthOptions> {
  options ??= ensureAuthSecret(getDeps()).then((secret) => ({
    secret,
    session: { strategy: "jwt", maxAge: 30 * 24 * 3600 },
    pages: { signIn: "/signin" },
    providers: [
      CredentialsProvider({
        name: "Email and password",
        credentials: {
          email: { label: "Email", type: "email" },
          password: { label: "Password", type: "password" },
        },
        async authorize(credentials) {
          if (!credentials?.email || !credentials.password) return null;
          const user = await verifyCredentials(getDeps(), credentials.email, credentials.password);
          return user ? { id: user.id, name: user.displayName, num: user.num } : null;
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user) {
          token.sub = user.id;
          token.num = (user as { num?: string }).num;
        }
        return token;
      },
      session({ session, token }) {
        return {
          ...session,
          user: { id: token.sub, num: token.num, name: token.name ?? null },
        };
      },
    },
  }));
  return options;
}
