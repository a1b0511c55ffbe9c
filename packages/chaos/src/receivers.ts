import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * How a local webhook receiver answers: `ok` at once; `slow` after 0.2-0.6 s; `failing` a 500
 * (or a cut connection) a quarter of the time; `garbage` bytes that are not HTTP a fifth of the
 * time. Every delivery counts as arrived once its body is read, whatever the answer.
 */
export type ReceiverKind = "ok" | "slow" | "failing" | "garbage";

export interface Arrival {
  id: string;
  seq: number;
  agentId: string;
  attempt: number;
  /** The signature verified against the agent's secret. */
  signed: boolean;
}

export interface Receiver {
  kind: ReceiverKind;
  url: string;
  arrivals: Arrival[];
  /** The agent's signing secret, once its webhook is set. */
  secret?: string;
  close(): Promise<void>;
}

export async function startReceiver(kind: ReceiverKind, random: () => number): Promise<Receiver> {
  const receiver: Receiver = { kind, url: "", arrivals: [], close: async () => {} };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      try {
        const event = JSON.parse(body) as { id: string; seq: number; agentId: string };
        receiver.arrivals.push({
          id: event.id,
          seq: event.seq,
          agentId: event.agentId,
          attempt: Number(request.headers["x-svc-delivery-attempt"]),
          signed: verifies(String(request.headers["x-svc-signature"] ?? ""), body, receiver.secret),
        });
      } catch {
        receiver.arrivals.push({ id: "", seq: -1, agentId: "", attempt: 0, signed: false });
      }
      const roll = random();
      if (kind === "slow") setTimeout(() => response.end("ok"), 200 + roll * 400);
      else if (kind === "failing" && roll < 0.2) response.writeHead(500).end("no");
      else if (kind === "failing" && roll < 0.25) request.socket.destroy();
      else if (kind === "garbage" && roll < 0.2) {
        request.socket.end("\x00\xffNOT HTTP AT ALL\r\n\r\n{{{");
      } else response.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** The spec's `t=<unix>,v1=<hex>` signature over `<t>.<raw body>`. */
export function verifies(header: string, body: string, secret: string | undefined): boolean {
  if (!secret) return false;
  const parts = header.split(",");
  const t = parts.find((part) => part.startsWith("t="))?.slice(2);
  const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
  return parts.some((part) => part === `v1=${expected}`);
}
