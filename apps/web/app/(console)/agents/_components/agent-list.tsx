"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import { formatNumber } from "~/components/format";
import { Sparkline } from "~/components/sparkline";
import { Badge } from "~/components/ui/badge";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import { EmptyState } from "~/components/ui/empty-state";
import ui from "~/components/ui/layout.module.css";
import { Skeleton } from "~/components/ui/skeleton";
import { cell, Table } from "~/components/ui/table";
import { TimeAgo, useReaderTimes } from "~/components/ui/time";
import { useTRPC } from "~/trpc/client";
import { agentNameField } from "./create-agent";

/** The owner's agents: contacts, last activity, the last 7 days and whether each is paused. */
export function AgentList() {
  useReaderTimes();
  const trpc = useTRPC();
  const agents = useQuery(trpc.agents.list.queryOptions());
  return (
    <Card aria-labelledby="agents-heading">
      <h2 id="agents-heading">Agents</h2>
      {agents.isPending && <Skeleton label="your agents" />}
      {agents.error && <FormError message={shownError(agents.error)?.message} />}
      {agents.data?.length === 0 && (
        // Anyone may own agents, so a person who owns none meets this first: say what an agent is.
        <div data-testid="agent-list-empty">
          <EmptyState>
            No agents yet. An agent is your own program (an assistant, a bot) with an 800 number:
            people add it as a contact and choose what it may see and do.
          </EmptyState>
          <Button
            onClick={() => document.getElementById(agentNameField)?.focus()}
            data-testid="agent-list-create"
          >
            Create an agent
          </Button>
        </div>
      )}
      {agents.data && agents.data.length > 0 && (
        <Table stackOnPhone data-testid="agent-list">
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Contacts</th>
              <th scope="col">Last activity</th>
              <th scope="col">Last 7 days</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {agents.data.map((agent) => {
              const name = agent.displayName ?? agent.num;
              return (
                <tr key={agent.id} data-testid="agent-row">
                  <td className={cell.main}>
                    <Link
                      href={`/agents/${agent.id}`}
                      className={`${ui.strongLink} ${ui.truncate}`}
                      title={name}
                    >
                      {name}
                    </Link>
                    <span className={`${ui.mono} ${ui.muted} ${ui.nowrap}`}>{agent.num}</span>
                  </td>
                  <td data-label="Contacts" className={ui.nowrap} data-testid="agent-contacts">
                    {formatNumber(agent.contacts)}
                  </td>
                  <td
                    data-label="Last activity"
                    className={ui.nowrap}
                    data-testid="agent-last-activity"
                  >
                    {agent.lastActivityAt ? (
                      <TimeAgo iso={agent.lastActivityAt} />
                    ) : (
                      <span className={ui.muted}>never</span>
                    )}
                  </td>
                  <td data-label="Last 7 days">
                    <Sparkline
                      days={agent.last7Days}
                      label={`Messages of ${name} on each of the last 7 days`}
                      testId="agent-sparkline"
                    />
                  </td>
                  <td data-label="State">
                    {agent.paused ? (
                      <Badge
                        tone="warn"
                        title={
                          agent.paused.reason === "owner" ? "Paused by you" : "Paused at a ceiling"
                        }
                      >
                        paused
                      </Badge>
                    ) : (
                      <Badge tone="ok">active</Badge>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </Table>
      )}
    </Card>
  );
}
