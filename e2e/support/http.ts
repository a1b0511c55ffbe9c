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

export { awayFromMinuteBoundary } from "@switchboard/core/testing";
