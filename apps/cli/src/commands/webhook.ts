import { findAgent, getWebhook, listWebhookDeliveries, resumeWebhook } from "@switchboard/core";
import { command } from "../command";

/** Operator webhook commands (spec/cli.md "Webhooks and events"). */
export const webhookCommands = [
  command({
    name: "webhook show",
    usage: "--agent AGENT",
    flags: { agent: { type: "string", required: true } },
    async run(flags, deps) {
      const agent = await findAgent(deps, flags.agent);
      return {
        webhook: await getWebhook(deps, agent.id),
        deliveries: await listWebhookDeliveries(deps, agent.id, 20),
      };
    },
  }),
  command({
    name: "webhook resume",
    usage: "--agent AGENT",
    flags: { agent: { type: "string", required: true } },
    async run(flags, deps) {
      const agent = await findAgent(deps, flags.agent);
      const { requeued } = await resumeWebhook(deps, agent.id);
      return { requeued };
    },
  }),
];
