import {
  CoreError,
  findAgent,
  getWebhook,
  listWebhookDeliveries,
  redeliverWebhookEvent,
  resumeWebhook,
} from "@switchboard/core";
import { command } from "../command";

const statuses = ["pending", "succeeded", "failed", "dead"] as const;

/** A `--status` value, or a usage error naming the ones there are. */
function deliveryStatus(value: string): (typeof statuses)[number] {
  const status = statuses.find((s) => s === value);
  if (!status)
    throw new CoreError("validation_error", `--status must be one of ${statuses.join(", ")}`, {
      issues: [{ path: "status", message: `must be one of ${statuses.join(", ")}` }],
    });
  return status;
}

/** Operator webhook commands (spec/cli.md "Webhooks and events"). */
export const webhookCommands = [
  command({
    name: "webhook show",
    usage: "--agent AGENT [--event EVENT_ID] [--status pending|succeeded|dead]",
    flags: {
      agent: { type: "string", required: true },
      event: { type: "string" },
      status: { type: "string" },
    },
    async run(flags, deps) {
      const agent = await findAgent(deps, flags.agent);
      return {
        webhook: await getWebhook(deps, agent.id),
        deliveries: await listWebhookDeliveries(deps, agent.id, 20, {
          ...(flags.event && { eventId: flags.event }),
          ...(flags.status && { status: deliveryStatus(flags.status) }),
        }),
      };
    },
  }),
  command({
    name: "webhook redeliver",
    usage: "--agent AGENT --event EVENT_ID",
    flags: {
      agent: { type: "string", required: true },
      event: { type: "string", required: true },
    },
    async run(flags, deps) {
      const agent = await findAgent(deps, flags.agent);
      return redeliverWebhookEvent(deps, agent.id, flags.event);
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
