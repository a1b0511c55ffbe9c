import { type NextRequest, NextResponse } from "next/server";
import { HSTS } from "~/server/console-origin";
import { newNonce, pagePolicy } from "~/server/security-headers";

/**
 * Every console page gets a Content-Security-Policy with a nonce of its own. Next reads the
 * nonce from the request's policy header while rendering and puts it on the inline scripts it
 * writes, so only those and our own script files run.
 */
export function proxy(request: NextRequest): NextResponse {
  // biome-ignore lint/style/noProcessEnv: Next inlines NODE_ENV; dev mode needs eval for its overlay.
  const policy = pagePolicy(newNonce(), process.env.NODE_ENV === "development");
  const headers = new Headers(request.headers);
  headers.set("Content-Security-Policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("Content-Security-Policy", policy);
  // Next renders pages past the raw guard's HSTS; the settled origin (console-origin.ts) says https.
  if (request.headers.get("x-forwarded-proto") === "https")
    response.headers.set("Strict-Transport-Security", HSTS);
  return response;
}

export const config = {
  // Pages only. API routes keep their own fixed policy (next.config.ts) and are never proxied:
  // Next would buffer a proxied request's body in memory, and bodies are capped as they stream.
  // A page request never carries a body this far: the HTTP edge (http-edge.mjs) refuses one
  // unread.
  matcher: [{ source: "/((?!api(?:/|$)|_next/static/|_next/image|favicon.ico).*)" }],
};
