import { ProfileSection } from "../_components/profile-card";

/** An agent's public profile for its owner (the agent is read by the layout). */
export default async function AgentProfilePage({
  params,
}: {
  params: Promise<{ agentId: string }>;
}) {
  return <ProfileSection agentId={(await params).agentId} />;
}
