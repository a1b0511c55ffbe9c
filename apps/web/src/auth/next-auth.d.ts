import type { DefaultSession } from "next-auth";

/** What the console adds to next-auth's types: the person's number, and their id in the session. */
declare module "next-auth" {
  interface User {
    num: string;
  }
  interface Session {
    user: { id: string; num: string; name: string | null; sessionId?: string } & Omit<
      DefaultSession["user"],
      "name"
    >;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    num?: string;
    /** The session's id from sign-in on (`newConsoleSessionId`); sign-out ends it server-side. */
    sid?: string;
    /** Sign-in time (unix seconds): a session ends 30 days after it, refreshed or not. */
    started?: number;
  }
}
