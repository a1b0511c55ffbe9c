import { CoreError } from "@switchboard/core";
import { NextRequest } from "next/server";
import { clientNetwork } from "~/server/client-network";
import { getDeps } from "~/server/deps";
import { callerKey, readBodyText } from "~/server/read-body";
import { errorResponse } from "~/server/responses";
import { storableQuery } from "~/server/storable-input";

/**
 * The most a next-auth request carries: a sign-in form (an email, a password, a CSRF token and
 * a callback URL) or a sign-out form. Larger bodies are refused as they stream in.
 */
export const AUTH_BODY_BYTES = 8 * 1024;

/** The cookies next-auth keeps a callback URL in (plain, and its https name). */
export const CALLBACK_COOKIES = ["next-auth.callback-url", "__Secure-next-auth.callback-url"];

/**
 * Whether `value` is a callback URL next-auth can take: a path on this console (`/chats`, not
 * `//host` or `/\host`) or an absolute http(s) URL (the redirect callback then keeps it only on
 * the console's origin), with no spaces or control characters (it ends up in a header).
 */
export function isCallbackUrl(value: unknown): boolean {
  if (typeof value !== "string" || value.length > 2048 || /[\s\p{Cc}]/u.test(value)) return false;
  if (value.startsWith("/")) return !/^\/[/\\]/.test(value);
  try {
    return /^https?:$/.test(new URL(value).protocol);
  } catch {
    return false;
  }
}

/** An error name next-auth copies into a redirect (`?error=CredentialsSignin`): a word. */
const ERROR_NAME = /^[A-Za-z]{1,64}$/;
/** A segment of `/api/auth/…` (an action, a provider id). */
const SEGMENT = /^[A-Za-z0-9_-]{1,64}$/;

function invalid(path: string, message: string, headers: Record<string, string> = {}): Response {
  return errorResponse("validation_error", message, { issues: [{ path, message }] }, headers);
}

/**
 * What next-auth reads before any body, checked: the path's segments, the query's `callbackUrl`
 * and `error` (next-auth throws on an odd callback URL, a 500, and copies `error` unencoded into
 * `Location`), and the callback-URL cookie (answered 400 with the cookie cleared, so a browser
 * holding a bad one is not stuck). Null when all is well.
 */
function headProblem(request: NextRequest, segments: readonly string[]): Response | null {
  const bad = segments.find((segment) => !SEGMENT.test(segment));
  if (bad !== undefined) return invalid("path", "Not an auth endpoint");
  let query: Record<string, string>;
  try {
    query = storableQuery(request.nextUrl);
  } catch (error) {
    if (error instanceof CoreError) return errorResponse(error.code, error.message, error.details);
    throw error;
  }
  if (query.callbackUrl !== undefined && !isCallbackUrl(query.callbackUrl))
    return invalid("callbackUrl", "callbackUrl must be a path or an http(s) URL");
  // next-auth takes the error from the query, else from the error page's second segment.
  const error = query.error ?? (segments[0] === "error" ? segments[1] : undefined);
  if (error !== undefined && !ERROR_NAME.test(error))
    return invalid("error", "error must be the name of a sign-in error");
  for (const name of CALLBACK_COOKIES) {
    const cookie = request.cookies.get(name)?.value;
    if (cookie !== undefined && !isCallbackUrl(cookie))
      return invalid(`cookie.${name}`, "The callback URL cookie is not a URL; it is cleared", {
        "Set-Cookie": `${name}=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax${name.startsWith("__Secure-") ? "; Secure" : ""}`,
      });
  }
  return null;
}

/**
 * The fields of a body as next-auth reads them (a JSON object, or a form), checked: every value
 * a string (next-auth calls string methods on them: an object there is a 500) and `callbackUrl`
 * one it can take. Null when all is well.
 */
function bodyProblem(text: string, type: string): Response | null {
  let fields: Record<string, unknown>;
  if (type.includes("application/json")) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return invalid("", "The body is not a JSON object");
    fields = body as Record<string, unknown>;
  } else if (type.includes("application/x-www-form-urlencoded")) {
    fields = Object.fromEntries(new URLSearchParams(text));
  } else return null; // next-auth reads no other body
  const notText = Object.keys(fields).find((key) => typeof fields[key] !== "string");
  if (notText !== undefined) return invalid(notText, `${notText} must be a string`);
  if (fields.callbackUrl !== undefined && !isCallbackUrl(fields.callbackUrl))
    return invalid("callbackUrl", "callbackUrl must be a path or an http(s) URL");
  return null;
}

/**
 * A request for next-auth's endpoints with its input checked and its body read here, or the
 * envelope refusing it: 400 `validation_error` for input next-auth would fail on (see
 * `headProblem`, `bodyProblem`) or a body that is not UTF-8, 413 `payload_too_large` past
 * `AUTH_BODY_BYTES` (before the rest arrives). next-auth gets a copy whose body is the text
 * read. `segments` are the path's segments after `/api/auth/`.
 */
export async function readAuthRequest(
  request: NextRequest,
  segments: readonly string[] = [],
): Promise<NextRequest | Response> {
  const problem = headProblem(request, segments);
  if (problem) return problem;
  if (!request.body) return request;
  let text: string;
  try {
    const network = clientNetwork(request.headers, getDeps().config.TRUSTED_PROXIES);
    text = await readBodyText(request, {
      caller: callerKey({ network }),
      maxBytes: AUTH_BODY_BYTES,
    });
  } catch (error) {
    if (error instanceof CoreError) return errorResponse(error.code, error.message, error.details);
    throw error;
  }
  const badBody = bodyProblem(text, request.headers.get("content-type") ?? "");
  if (badBody) return badBody;
  return new NextRequest(request.url, {
    method: request.method,
    headers: request.headers,
    body: text,
  });
}
