/** The sections of an agent's page, each its own address under `/agents/<id>`, in tab order. */
export const agentSections = [
  { slug: "", label: "Overview" },
  { slug: "tokens", label: "Tokens" },
  { slug: "webhook", label: "Webhook" },
  { slug: "decisions", label: "Decisions" },
  { slug: "profile", label: "Profile" },
] as const;

export type AgentSection = (typeof agentSections)[number];

/** The section a path under `/agents/<id>` shows (the overview for the agent's own address). */
export function sectionOfPath(pathname: string, agentId: string): AgentSection | undefined {
  const rest = pathname.split(`/agents/${agentId}`)[1]?.replace(/^\//, "").split("/")[0] ?? "";
  return agentSections.find((section) => section.slug === rest);
}

/** "Tokens · Planner · Agents · Switchboard"; the overview is the agent's own "Planner · Agents · …". */
export function sectionTitle(section: AgentSection | undefined, agentName: string): string {
  const where = section?.slug ? `${section.label} · ` : "";
  return `${where}${agentName} · Agents · Switchboard`;
}
