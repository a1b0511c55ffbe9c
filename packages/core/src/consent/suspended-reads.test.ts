import { execFileSync } from "node:child_process";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addContact } from "../contacts/contacts";
import { createAgent } from "../identity/agents";
import { createUser, setUserSuspended } from "../identity/users";
import { getMessageAudio } from "../messaging/get-message-audio";
import { listAgentMessages } from "../messaging/list-agent-messages";
import { markConversationRead } from "../messaging/mark-conversation-read";
import { sendAgentMessage } from "../messaging/send-agent-message";
import { sendPersonMessage } from "../messaging/send-person-message";
import { setAgentTyping } from "../messaging/set-agent-typing";
import { listRecordsForAgent } from "../records/agent-records";
import { createRecord } from "../records/person-records";
import { codeOf, createTestDeps } from "../testing";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const WAV = `data:audio/wav;base64,${execFileSync("espeak-ng", ["--stdout", "hello"]).toString("base64")}`;

it("a suspended person: reads answer as before (history, audio, records); whatever reaches them answers recipient_suspended", async () => {
  const owner = await createUser(t.deps, {});
  const person = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Reader",
    requestedScopes: ["messages:read", "messages:write", "tasks:read"],
  });
  const { conversationId } = await addContact(t.deps, person.id, agent.id, [
    "messages:read",
    "messages:write",
    "tasks:read",
  ]);
  const { message: note } = await sendPersonMessage(t.deps, person.id, agent.id, {
    type: "voice",
    audioData: WAV,
  });
  await sendAgentMessage(
    t.deps,
    { agentId: agent.id },
    { conversationId, type: "text", content: "hi" },
  );
  await createRecord(t.deps, person.id, "task", { title: "Call the bank" });

  await setUserSuspended(t.deps, person.id, true);

  // Reads: the conversation is the agent's too, and the grant still stands.
  const history = await listAgentMessages(t.deps, agent.id, conversationId, { limit: 50 });
  expect(history.messages.map((m) => m.type)).toEqual(["voice", "text"]);
  expect((await getMessageAudio(t.deps, agent.id, note.id)).mimeType).toBe("audio/wav");
  const tasks = await listRecordsForAgent(t.deps, agent.id, conversationId, "task");
  expect(tasks.map((task) => task.title)).toEqual(["Call the bank"]);

  // What the person would see: refused with the send's code.
  const reach = [
    () =>
      sendAgentMessage(
        t.deps,
        { agentId: agent.id },
        { conversationId, type: "text", content: "x" },
      ),
    () => setAgentTyping(t.deps, agent.id, conversationId, true),
    () => markConversationRead(t.deps, agent.id, conversationId, note.id),
  ];
  for (const call of reach) expect(await codeOf(call())).toBe("recipient_suspended");

  // Lifted, the agent reaches them again.
  await setUserSuspended(t.deps, person.id, false);
  expect(await codeOf(setAgentTyping(t.deps, agent.id, conversationId, true))).toBe("ok");
});
