"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import ui from "~/components/ui/layout.module.css";
import { Skeleton } from "~/components/ui/skeleton";
import { useTRPC } from "~/trpc/client";
import { useUrlQuery } from "../../../_components/use-url-query";
import { DeliveryLog } from "./delivery-log";
import { EndpointCard } from "./endpoint-card";
import { logViewFrom, logViewQuery } from "./log-view";

/**
 * The webhook section in the browser (the agent's layout names the agent): the log as the URL asks
 * for it, changed as the owner filters.
 */
export function WebhookView({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const url = useUrlQuery();
  const view = logViewFrom(url.params);
  // Another page or filter keeps the rows shown until its own arrive (no flash of skeleton).
  const data = useQuery({
    ...trpc.webhooks.get.queryOptions({ agentId, ...view }),
    placeholderData: keepPreviousData,
  });

  return (
    <>
      <p className={ui.muted}>
        Every event of this agent is POSTed, signed, to its webhook URL. Long-poll and the stream
        keep working whatever its state.
      </p>
      {data.isPending && <Skeleton lines={4} label="the webhook" />}
      <FormError message={shownError(data.error)?.message} />
      <EndpointCard agentId={agentId} data={data.data} />
      <DeliveryLog
        agentId={agentId}
        data={data.data}
        view={view}
        onView={(next) => url.change(logViewQuery(next))}
        loading={data.isPlaceholderData}
      />
    </>
  );
}
