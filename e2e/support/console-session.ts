import { rawRequest } from "./raw-http";

/** The `name=value` pairs of an answer's Set-Cookie headers, as one Cookie header. */
function cookiesOf(headers: Record<string, string | string[] | undefined>): string {
  const set = headers["set-cookie"];
  return (Array.isArray(set) ? set : set ? [set] : [])
    .map((cookie) => cookie.split(";")[0])
    .join("; ");
}

/**
 * A new person signed in to the console without a browser: sign-up through tRPC, then
 * next-auth's CSRF and credentials endpoints. Answers the Cookie header of the session.
 */
export async function consoleSession(baseUrl: string): Promise<{ cookie: string }> {
  const email = `edge-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = "correct horse battery";
  const json = { "Content-Type": "application/json" };
  const signUp = await rawRequest(
    baseUrl,
    "POST",
    "/api/trpc/auth.signUp",
    json,
    JSON.stringify({ json: { displayName: "Edge", email, password } }),
  );
  if (signUp.status !== 200) throw new Error(`sign-up: ${signUp.status} ${signUp.text}`);
  const csrf = await rawRequest(baseUrl, "GET", "/api/auth/csrf");
  const { csrfToken } = JSON.parse(csrf.text) as { csrfToken: string };
  const form = new URLSearchParams({ email, password, csrfToken, json: "true" }).toString();
  const signIn = await rawRequest(
    baseUrl,
    "POST",
    "/api/auth/callback/credentials",
    { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookiesOf(csrf.headers) },
    form,
  );
  const cookie = cookiesOf(signIn.headers);
  if (!cookie.includes("session-token"))
    throw new Error(`sign-in: ${signIn.status} ${signIn.text}`);
  return { cookie };
}
