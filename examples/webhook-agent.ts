/**
 * The webhook agent: a plain node:http server that verifies each delivery's signature against
 * the raw body, answers at once, then replies through the API.
 *   SWITCHBOARD_TOKEN=sbat_… SWITCHBOARD_WEBHOOK_SECRET=whsec_… npm run -s -w examples webhook
 * It listens on WEBHOOK_AGENT_PORT (default 4242).
 * Events reach it from `switchboard listen --agent 800-… --forward-to http://localhost:4242/webhook`
 * (use the secret it prints), or from a webhook set with PUT /webhook (its secret).
 */
import { createServer } from "node:http";
import { type AgentEvent, verifyWebhook, WebhookVerificationError } from "@switchboard/sdk";
import { connect, onStop } from "./env";

const { client } = await connect();
const secrets = (process.env.SWITCHBOARD_WEBHOOK_SECRET ?? "").split(",").filter(Boolean);
if (secrets.length === 0) {
  console.error("Set SWITCHBOARD_WEBHOOK_SECRET (whsec_…; during a rotation: new,old)");
  process.exit(1);
}
// Its own variable: PORT is the service's (exported for `npm start`, it would clash).
const port = Number(process.env.WEBHOOK_AGENT_PORT ?? 4242);
const seen = new Set<string>(); // delivery is at-least-once: deduplicate on the event id

async function handle(event: AgentEvent): Promise<void> {
  if (event.type !== "message.received" || !event.payload.message) return;
  const { conversationId, message, from } = event.payload;
  await client.sendMessage({
    conversationId,
    type: "text",
    content: `Got it, ${from.displayName ?? from.num}: "${message.content}" arrived by webhook.`,
    replyToId: message.id,
  });
  console.log(`answered ${from.num} (${event.id})`);
}

const server = createServer(async (request, response) => {
  if (request.method !== "POST" || request.url !== "/webhook")
    return void response.writeHead(404).end();
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  let event: AgentEvent;
  try {
    // The raw bytes, before any JSON parsing: a re-serialized body would not match.
    event = verifyWebhook(Buffer.concat(chunks), request.headers["x-svc-signature"], secrets);
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) throw error;
    console.log(`refused a delivery: ${error.reason}`);
    return void response.writeHead(400).end(error.reason);
  }
  // Answer within 10 s; the work happens after.
  response.writeHead(204).end();
  if (seen.has(event.id)) return;
  seen.add(event.id);
  console.log(`${event.type} ${event.id} (seq ${event.seq})`);
  handle(event).catch((error) => console.error(`handling ${event.id} failed:`, error));
});
server.listen(port, () => console.log(`webhook agent on http://localhost:${port}/webhook`));
onStop(() => new Promise((resolve) => server.close(resolve)));
