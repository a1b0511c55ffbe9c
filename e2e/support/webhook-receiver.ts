import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A webhook receiver: real HTTP on loopback (the e2e run allows it with
 * WEBHOOK_ALLOW_INSECURE_HOSTS), answering 200 (or what `status` says for the request) and
 * keeping every delivery's headers and raw body.
 */
export async function startWebhookReceiver(
  status: (headers: IncomingMessage["headers"]) => number = () => 200,
) {
  const received: { headers: IncomingMessage["headers"]; body: string }[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      received.push({ headers: request.headers, body });
      response.statusCode = status(request.headers);
      response.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
