import type { RouterOutputs } from "~/trpc/router";

/** What the webhook page reads in one query: the webhook, a page of its log, what is waiting. */
export type WebhookData = RouterOutputs["webhooks"]["get"];
export type Webhook = NonNullable<WebhookData["webhook"]>;
export type Delivery = WebhookData["deliveries"][number];
