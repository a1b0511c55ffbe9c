import { useQueryClient } from "@tanstack/react-query";
import { useTRPC } from "~/trpc/client";

/** Refreshes everything the console shows about one agent (its page and the agents list). */
export function useInvalidateAgent(agentId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.agents.get.queryFilter({ agentId })),
      queryClient.invalidateQueries(trpc.agents.list.queryFilter()),
    ]);
}
