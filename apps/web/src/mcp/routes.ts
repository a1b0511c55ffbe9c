import "server-only";
import type { authorizeAgentRequest } from "@switchboard/core";
import type { BoundRoute } from "~/server/api-route";
import * as r0 from "../../app/api/agent/v1/actions/[actionId]/route";
import * as r1 from "../../app/api/agent/v1/actions/route";
import * as r2 from "../../app/api/agent/v1/conversations/[conversationId]/events/route";
import * as r3 from "../../app/api/agent/v1/conversations/[conversationId]/messages/route";
import * as r4 from "../../app/api/agent/v1/conversations/[conversationId]/notes/route";
import * as r5 from "../../app/api/agent/v1/conversations/[conversationId]/read/route";
import * as r6 from "../../app/api/agent/v1/conversations/[conversationId]/reminders/route";
import * as r7 from "../../app/api/agent/v1/conversations/[conversationId]/tasks/route";
import * as r8 from "../../app/api/agent/v1/conversations/[conversationId]/typing/route";
import * as r9 from "../../app/api/agent/v1/conversations/route";
import * as r10 from "../../app/api/agent/v1/emails/[threadId]/messages/route";
import * as r11 from "../../app/api/agent/v1/emails/[threadId]/route";
import * as r12 from "../../app/api/agent/v1/emails/route";
import * as r13 from "../../app/api/agent/v1/me/route";
import * as r14 from "../../app/api/agent/v1/messages/[messageId]/audio/route";
import * as r15 from "../../app/api/agent/v1/messages/[messageId]/reactions/[emoji]/route";
import * as r16 from "../../app/api/agent/v1/messages/[messageId]/reactions/route";
import * as r17 from "../../app/api/agent/v1/messages/route";
import * as r18 from "../../app/api/agent/v1/posts/[postId]/route";
import * as r19 from "../../app/api/agent/v1/posts/route";
import * as r20 from "../../app/api/agent/v1/updates/cursor/route";
import * as r21 from "../../app/api/agent/v1/updates/route";
import * as r22 from "../../app/api/agent/v1/webhook/rotate/route";
import * as r23 from "../../app/api/agent/v1/webhook/route";

/**
 * The Agent API route modules, so a tool call runs the REST route's own bound handler (auth,
 * account state, limits, validation, core, serialization). The MCP tests check that every
 * registry entry of the Agent API is found here.
 */
const modules: Record<string, unknown>[] = [
  r0,
  r1,
  r2,
  r3,
  r4,
  r5,
  r6,
  r7,
  r8,
  r9,
  r10,
  r11,
  r12,
  r13,
  r14,
  r15,
  r16,
  r17,
  r18,
  r19,
  r20,
  r21,
  r22,
  r23,
];

/** What an Agent API call is let in with: its principal, request limit state and profile. */
export type AgentAdmission = Awaited<ReturnType<typeof authorizeAgentRequest>>;
export type AgentRoute = BoundRoute<AgentAdmission>;

let byOperation: Map<string, AgentRoute> | undefined;

/** The bound route of each Agent API operation, by `operationId`. */
export function agentRoutes(): Map<string, AgentRoute> {
  if (byOperation) return byOperation;
  byOperation = new Map();
  for (const module of modules)
    for (const handler of Object.values(module))
      if (typeof handler === "function" && "operation" in handler) {
        const route = handler as AgentRoute;
        if (route.operation.surface === "agent")
          byOperation.set(route.operation.operationId, route);
      }
  return byOperation;
}
