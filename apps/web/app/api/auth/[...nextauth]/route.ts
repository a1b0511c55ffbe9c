import type { NextRequest } from "next/server";
import NextAuth from "next-auth";
import { getAuthOptions } from "~/auth/options";

type Context = { params: Promise<{ nextauth: string[] }> };

/**
 * next-auth's endpoints (sign-in, session, csrf, sign-out). The options are built per request:
 * their signing secret may come from the database, and their redirects stay on the request's
 * host (see `getAuthOptions`).
 */
async function handler(request: NextRequest, context: Context): Promise<Response> {
  return NextAuth(request, context, await getAuthOptions(request));
}

export { handler as GET, handler as POST };
