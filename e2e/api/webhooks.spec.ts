import { createHmac } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { sendPersonMessage } from "@switchboard/core";
import { expectEvent } from "../support/contract";
import { deps, newAgent, newContact } from "../support/fixtures";
import { expect, test } from "../support/test";

test("webhook configuration: URL rules, secret shown once, rotate, delete", async ({ request }) => {
  const { auth } = await newAgent();
  const api = (path: string) => `/api/agent/v1/webhook${path}`;
  expect(await (await request.get(api(""), { headers: auth })).json()).toEqual({ webhook: null });
  expect((await request.post(api("/rotate"), { headers: auth })).status()).toBe(404);
  for (const url of [
    "http://hooks.example.com/in",
    "https://169.254.169.254/latest",
    "https://0x0a000001/", // 10.0.0.1 in hex
    "https://2130706434/", // 127.0.0.2 in decimal
    "https://metadata.google.internal/",
    `https://example.com/${"x".repeat(2000)}`,
  ]) {
    const refused = await request.put(api(""), { headers: auth, data: { url } });
    expect(refused.status(), url).toBe(400);
    expect((await refused.json()).error.code).toBe("validation_error");
  }
  const put = await request.put(api(""), {
    headers: auth,
    data: { url: "https://hooks.example.com/in" },
  });
  expect(put.status()).toBe(200);
  const { webhook, secret } = await put.json();
  expect(secret).toMatch(/^whsec_/);
  expect(webhook).toMatchObject({ url: "https://hooks.example.com/in", state: "active" });
  const shown = await (await request.get(api(""), { headers: auth })).text();
  expect(shown).not.toContain(secret);
  const rotated = await (await request.post(api("/rotate"), { headers: auth })).json();
  expect(rotated.secret).not.toBe(secret);
  expect(rotated.webhook.rotationGraceUntil).not.toBeNull();
  expect(await (await request.delete(api(""), { headers: auth })).json()).toEqual({
    deleted: true,
  });
  expect(await (await request.delete(api(""), { headers: auth })).json()).toEqual({
    deleted: false,
  });
});

test("the worker delivers a person's message to the webhook, signed", async ({ request }) => {
  const received: { headers: IncomingMessage["headers"]; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ headers: req.headers, body });
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { auth, agent, person } = await newContact();
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
    const { secret } = await (
      await request.put("/api/agent/v1/webhook", { headers: auth, data: { url } })
    ).json();
    await sendPersonMessage(deps(), person.id, agent.id, { type: "text", content: "ping me" });
    // Delivery is at least once; every copy is this one event.
    await expect.poll(() => received.length, { timeout: 10_000 }).toBeGreaterThan(0);
    const [got] = received;
    expect(new Set(received.map((r) => r.headers["x-svc-event-id"])).size).toBe(1);
    const event = expectEvent(JSON.parse(got?.body ?? "{}"));
    expect(event).toMatchObject({ type: "message.received", agentId: agent.id });
    expect(event.payload).toMatchObject({ message: { content: "ping me" } });
    const signature = got?.headers["x-svc-signature"] as string;
    const t = /t=(\d+)/.exec(signature)?.[1];
    const v1 = createHmac("sha256", secret).update(`${t}.${got?.body}`).digest("hex");
    expect(signature).toContain(`v1=${v1}`);
    expect(got?.headers["x-svc-event-id"]).toBe(event.id);
    // The worker records the success once the receiver has answered: shortly after arrival.
    const lastSuccessAt = async () =>
      (await (await request.get("/api/agent/v1/webhook", { headers: auth })).json()).webhook
        .lastSuccessAt;
    await expect.poll(lastSuccessAt, { timeout: 10_000 }).not.toBeNull();
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
