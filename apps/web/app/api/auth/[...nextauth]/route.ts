import type { NextRequest } from "next/server";
import NextAuth from "next-auth";
import { readAuthRequest } from "~/auth/auth-request";
import { getAuthOptions } from "~/auth/options";
import { errorResponse } from "~/server/responses";

type Context = { params: Promise<{ nextauth: string[] }> };

/**
 * next-auth's endpoints (sign-in, session, csrf, sign-out). Their input is checked and the body
 * read first, capped at a few KB (`readAuthRequest`): next-auth answers 500 for much it does not
 * expect. The options are built per request: their signing secret may come
 * from the database, and their redirects stay on the console's origin (see `getAuthOptions`).
 */
async function handler(request: NextRequest, context: Context): Promise<Response> {
  // next-auth answers a credentials callback by GET with a 500 ("not supported").
  const segments = (await context.params).nextauth ?? [];
  const [action, provider] = segments;
  if (request.method !== "POST" && action === "callback" && provider === "credentials")
    return errorResponse(
      "method_not_allowed",
      "Credentials are sent with POST",
      {},
      { Allow: "POST" },
    );
  const req = await readAuthRequest(request, segments);
  if (req instanceof Response) return req;
  return NextAuth(req, context, await getAuthOptions(req));
}

export { handler as GET, handler as POST };
