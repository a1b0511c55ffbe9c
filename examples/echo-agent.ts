/**
 * The echo agent: receives events by long-poll and answers every message with its text.
 *   SWITCHBOARD_TOKEN=sbat_… npm run -s -w examples echo
 */
import { connect, onStop } from "./env";

const { client, me } = await connect();
// Start from now: the cursor is the latest event's seq (save `updates.cursor` to resume instead).
const { seq } = await client.getUpdatesCursor();
const stop = new AbortController();
onStop(() => stop.abort());
console.log(`${me.displayName} (${me.num}) is listening by long-poll after seq ${seq}`);

for await (const event of client.updates({ afterSeq: seq, signal: stop.signal })) {
  if (event.type === "contact.added") {
    await client.sendMessage({
      to: event.payload.user.num,
      type: "text",
      content: "Hi! I repeat whatever you write to me.",
    });
    console.log(`greeted ${event.payload.user.num}`);
  }
  if (event.type !== "message.received") continue;
  const { conversationId, message, from } = event.payload;
  if (!message) {
    // The person withheld messages:read: the event is masked (accessDenied says why).
    console.log(`a message from ${from.num} I may not read`);
    continue;
  }
  await client.markRead({ conversationId, messageId: message.id });
  const { message: reply } = await client.sendMessage({
    conversationId,
    type: "text",
    content: `Echo: ${message.content}`,
    replyToId: message.id,
  });
  console.log(`echoed ${JSON.stringify(message.content)} to ${from.num} as ${reply.id}`);
}
