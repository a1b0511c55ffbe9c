import { type APIResponse, expect } from "@playwright/test";

/** Asserts the spec's error envelope with the given status and code, and answers the error. */
export async function expectError(response: APIResponse, status: number, code: string) {
  expect(response.status(), await response.text()).toBe(status);
  expect(response.headers()["content-type"]).toContain("application/json");
  const body = await response.json();
  expect(body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
  expect(Object.keys(body)).toEqual(["error"]);
  return body.error as {
    code: string;
    message: string;
    issues?: { path: string; message: string }[];
    retryAfterSeconds?: number;
    scope?: string;
  };
}

/**
 * Per-minute limits count in fixed UTC-minute windows; a test that must see one window whole
 * waits out the last few seconds of a minute first.
 */
export async function awayFromMinuteBoundary(needMs = 5000) {
  const intoMinute = Date.now() % 60_000;
  if (60_000 - intoMinute < needMs)
    await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 50));
}
