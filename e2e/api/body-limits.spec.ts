import { request as httpRequest } from "node:http";
import { consoleSession } from "../support/console-session";
import { newAgent } from "../support/fixtures";
import { expect, test } from "../support/test";

/**
 * A chunked body with no Content-Length, sent 1 MB at a time until the service answers (at most
 * 64 MB): the service must answer 413 while the body is still coming, not after reading it all.
 */
function postEndless(path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; body: string; sentBytes: number }>((resolve, reject) => {
    const port = Number(process.env.E2E_PORT);
    const req = httpRequest({ host: "127.0.0.1", port, path, method: "POST", headers });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sentBytes = 0;
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      let body = "";
      res.on("data", (data) => {
        body += data;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, sentBytes }));
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    req.write("[");
    const pump = () => {
      while (!answered && sentBytes < 64 * 1024 * 1024) {
        sentBytes += chunk.length;
        if (!req.write(chunk)) return void req.once("drain", pump);
      }
      if (!answered) req.end("]");
    };
    pump();
  });
}

test("an endless chunked body to the Agent API is cut off with 413 payload_too_large", async () => {
  const { auth } = await newAgent();
  const answer = await postEndless("/api/agent/v1/messages", {
    ...auth,
    "Content-Type": "application/json",
  });
  expect(answer.status).toBe(413);
  expect(JSON.parse(answer.body).error.code).toBe("payload_too_large");
  expect(answer.sentBytes).toBeLessThan(64 * 1024 * 1024);
});

test("an endless chunked body to the console's tRPC is cut off with 413 too", async () => {
  const { cookie } = await consoleSession(`http://127.0.0.1:${process.env.E2E_PORT}`);
  const answer = await postEndless("/api/trpc/chats.send", {
    "Content-Type": "application/json",
    Cookie: cookie,
  });
  expect(answer.status).toBe(413);
  expect(JSON.parse(answer.body).error.json.data).toMatchObject({
    httpStatus: 413,
    code: "payload_too_large",
  });
});
