import { Readiness } from "@switchboard/contract";
import { newAgent } from "../support/fixtures";
import { expect, test } from "../support/test";

test("the web app says it is ready, and its metrics count the API calls of every route", async ({
  request,
}) => {
  const ready = await request.get("/api/readyz");
  expect(ready.status()).toBe(200);
  expect(Readiness.parse(await ready.json())).toMatchObject({ status: "ready" });

  const { auth } = await newAgent();
  const me = await request.get("/api/agent/v1/me", { headers: auth });
  expect(me.headers()["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  await request.get("/api/agent/v1/posts/pst_nope", { headers: auth });

  // The metrics route is another route of the same process: one registry for all.
  const text = await (await request.get("/api/metrics")).text();
  expect(text).toMatch(
    /^switchboard_http_request_duration_seconds_count\{surface="agent",route="getMe",status="200"\} [1-9]\d*$/m,
  );
  expect(text).toMatch(/^switchboard_refusals_total\{code="not_found"\} [1-9]\d*$/m);
});
