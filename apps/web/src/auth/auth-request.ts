import { CoreError } from "@switchboard/core";
import { NextRequest } from "next/server";
import { clientNetwork } from "~/server/client-network";
import { getDeps } from "~/server/deps";
import { callerKey, readBodyText } from "~/server/read-body";
import { errorResponse } from "~/server/responses";

/**
 * The most a next-auth request carries: a sign-in form (an email, a password, a CSRF token and
 * a callback URL) or a sign-out form. Larger bodies are refused as they stream in.
 */
export const AUTH_BODY_BYTES = 8 * 1024;

/**
 * A request for next-auth's endpoints with its body read here, or the envelope refusing it:
 * 413 `payload_too_large` past `AUTH_BODY_BYTES` (before the rest arrives), 400
 * `validation_error` for a body that is not UTF-8, or that claims JSON and is not a JSON object
 * (next-auth would throw on it: a 500). next-auth gets a copy whose body is the text read.
 */
export async function readAuthRequest(request: NextRequest): Promise<NextRequest | Response> {
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
  if ((request.headers.get("content-type") ?? "").includes("application/json")) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return errorResponse("validation_error", "The body is not a JSON object", {
        issues: [{ path: "", message: "must be a JSON object" }],
      });
  }
  return new NextRequest(request.url, {
    method: request.method,
    headers: request.headers,
    body: text,
  });
}
