import type { AgentScope, AgentSendMessageRequest } from "@switchboard/contract";
import { addContact } from "../contacts/contacts";
import type { CoreDeps } from "../deps";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { sendAgentMessage } from "./send-agent-message";

/**
 * The messaging tests' chat: an owner's agent (Helper) in a person's (Pat's) contacts with the
 * given grant, and `send` as that agent in it. Plain functions, no hooks: the core's tests share
 * modules (`isolate: false`), so each test file owns its setup.
 */
export async function testChat(
  deps: CoreDeps,
  grant: AgentScope[] = ["messages:read", "messages:write"],
) {
  const owner = await createUser(deps, {});
  const person = await createUser(deps, { displayName: "Pat" });
  const agent = await createAgent(deps, {
    ownerId: owner.id,
    displayName: "Helper",
    requestedScopes: ["messages:read", "messages:write"],
  });
  const { conversationId } = await addContact(deps, person.id, agent.id, grant);
  const send = (request: Omit<AgentSendMessageRequest, "to" | "conversationId">, sendDeps = deps) =>
    sendAgentMessage(sendDeps, { agentId: agent.id }, { conversationId, ...request });
  return { owner, person, agent, conversationId, send };
}
