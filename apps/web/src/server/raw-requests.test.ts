import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, expect, it } from "vitest";
import { HSTS } from "./console-origin";
import { guardRawRequests } from "./raw-requests";

let server: Server;
let port: number;
beforeAll(async () => {
  guardRawRequests({ TRUSTED_PROXIES: ["127.0.0.1"] });
  // Echoes the headers a route would see.
  server = createServer((request, response) => {
    response.writeHead(200, { "Content-Type": "application/json" });
    response.end(JSON.stringify(request.headers));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A raw request (fetch would refuse these Host headers itself). */
function send(headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, unknown>; body: string }>(
    (resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port, path: "/signin", headers }, (res) => {
        let body = "";
        res.on("data", (chunk) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      });
      req.on("error", reject);
      req.end();
    },
  );
}

it("refuses a Host or trusted X-Forwarded-Host that is not a host with 400, never reaching a route", async () => {
  for (const headers of [
    { Host: "a:b:c" },
    { Host: "[::1]:x" },
    { Host: "localhost", "X-Forwarded-Host": "a:b:c" },
    { Host: "localhost", "X-Forwarded-Host": "[::1]:x" },
    { Host: "localhost", "X-Forwarded-Proto": "javascript" },
  ] as Record<string, string>[]) {
    const answer = await send(headers);
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: "malformed_request" } });
  }
});

it("passes the trusted proxy's values on alone, with HSTS when it says https", async () => {
  const answer = await send({
    Host: "10.0.0.2:3000",
    "X-Forwarded-Host": "evil.example, console.example.com",
    "X-Forwarded-Proto": "https",
  });
  expect(answer.status).toBe(200);
  const seen = JSON.parse(answer.body) as Record<string, string>;
  expect(seen["x-forwarded-host"]).toBe("console.example.com");
  expect(answer.headers["strict-transport-security"]).toBe(HSTS);
  const plain = await send({ Host: "localhost:3000" });
  expect(plain.headers["strict-transport-security"]).toBeUndefined();
});
