/**
 * The task agent, over the WebSocket stream: it streams its answer word by word, proposes a
 * `create_task` on an approval card, and acts when the person decides (`action.approved` /
 * `action.rejected` / `action.expired`); it also hears when a task comes due.
 *   SWITCHBOARD_TOKEN=sbat_… npm run -s -w examples tasks
 * The agent needs the scopes messages:read, messages:write and tasks:write (tasks:read for
 * task.due), and the person must grant them when adding it.
 */
import { type AgentEvent, isSwitchboardError } from "@switchboard/sdk";
import { connect, onStop } from "./env";

const { client, me } = await connect();
const stream = await client.connect();
onStop(() => stream.close());
console.log(`${me.displayName} (${me.num}) is connected to the stream after seq ${stream.seq}`);

/** Streams text to the person a few words at a time, as a model would. */
async function say(conversationId: string, text: string): Promise<void> {
  const reply = await stream.streamReply(conversationId);
  for (const word of text.split(/(?<= )/)) {
    reply.write(word);
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  await reply.end();
}

async function handle(event: AgentEvent): Promise<void> {
  switch (event.type) {
    case "message.received": {
      const { conversationId, message } = event.payload;
      if (message?.type !== "text") return;
      stream.typing(conversationId, true);
      await say(
        conversationId,
        `Shall I add "${message.content}" to your tasks? Check the card below.`,
      );
      try {
        const { action } = await client.proposeAction({
          conversationId,
          skill: "create_task",
          title: `Add a task: ${message.content.slice(0, 150)}`,
          payload: { title: message.content.slice(0, 200), priority: "normal" },
        });
        console.log(`proposed ${action.id} in ${conversationId}`);
      } catch (error) {
        if (!isSwitchboardError(error, "proposeAction")) throw error;
        // scope_not_granted (no tasks:write), too_many_pending, …: say so instead.
        await say(conversationId, `I can't propose that (${error.code}).`);
      }
      return;
    }
    case "action.approved": {
      const { conversationId, action } = event.payload;
      const execution = action.execution;
      const done = execution?.status === "succeeded";
      await say(
        conversationId,
        done
          ? `Done: "${String((action.editedPayload ?? action.payload).title)}" is on your list (${execution?.recordId}).`
          : `You approved it, but the task could not be created: ${execution?.error ?? "unknown error"}.`,
      );
      console.log(`approved ${action.id}: ${execution?.status}`);
      return;
    }
    case "action.rejected":
    case "action.expired": {
      // A rejection may say why (`rejection`); an expiry never does.
      const why = event.payload.action.rejection;
      const answer =
        why?.choice === "never"
          ? "OK, I won't add it, and I won't suggest it again."
          : why?.reason
            ? `OK, I won't add it. Noted: "${why.reason}".`
            : "OK, I won't add it.";
      await say(event.payload.conversationId, answer);
      console.log(`${event.type} ${event.payload.action.id}`, why ?? "");
      return;
    }
    case "task.due":
      await client.sendMessage({
        to: event.payload.user.num,
        type: "text",
        content: `⏰ "${event.payload.task.title}" is due now.`,
      });
      console.log(`task.due ${event.payload.task.id}`);
      return;
  }
}

stream.on("event", (event) => {
  console.log(`${event.type} (seq ${event.seq})`);
  handle(event).catch((error) => console.error(`handling ${event.type} failed:`, error));
});
stream.on("error", (error) => console.error(`stream error: ${error.code} ${error.message}`));
stream.on("close", ({ reconnecting }) => {
  if (!reconnecting) process.exit(1);
  console.log("stream dropped; reconnecting…");
});
