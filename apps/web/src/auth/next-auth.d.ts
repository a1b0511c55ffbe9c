import type { DefaultSession } from "next-auth";

/** What the console adds to next-auth's types: the person's number, and their id in the session. */
declare module "next-auth" {
  interface User {
    num: string;
  }
  interface Session {
    user: { id: string; num: string; name: string | null } & Omit<DefaultSession["user"], "name">;
  }
}

declare module "next-auth/jwt" {
  interface JWT {
    num?: string;
  }
}
