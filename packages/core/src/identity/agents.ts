import {
  type AgentMe,
  AgentNum,
  type AgentScope,
  type AgentUpdateMeRequest,
  Bio,
  DisplayName,
  HttpsUrl,
  inConsentOrder,
  type OwnedAgent,
  type RequestPrivacy,
} from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, asc, eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError, parseInput } from "../errors";
import { agentViewerTopics, notifyAgentControl } from "../events/agent-control";
import { notifyTopics } from "../events/notifier";
import { newId } from "../ids";
import { randomAgentNum, withFreshNum } from "./nums";
import { findUser } from "./users";

/** The wire shape lives in the contract; core modules may keep importing it from here. */
export type { OwnedAgent } from "@switchboard/contract";

const { agents, users } = schema;

export interface CreateAgentInput {
  ownerId: string;
  displayName: string;
  requestedScopes?: AgentScope[];
  requestPrivacy?: RequestPrivacy;
  bio?: string | null;
  avatarUrl?: string | null;
}

/** Creates an agent account owned by a person or business, with a fresh `800-` number. */
export async function createAgent(deps: CoreDeps, input: CreateAgentInput): Promise<AgentMe> {
  const owner = await findUser(deps, input.ownerId);
  if (owner.userType === "agent")
    throw new CoreError("validation_error", "an agent cannot own agents");
  const displayName = parseInput(DisplayName, input.displayName, "displayName");
  const bio = input.bio == null ? null : parseInput(Bio, input.bio, "bio");
  const avatarUrl =
    input.avatarUrl == null ? null : parseInput(HttpsUrl, input.avatarUrl, "avatarUrl");
  const now = deps.clock.now();
  const id = newId("agt");
  await withFreshNum(randomAgentNum, (num) =>
    deps.db.transaction(async (tx) => {
      await tx.insert(users).values({
        id,
        num,
        userType: "agent",
        displayName,
        bio,
        avatarUrl,
        createdAt: now,
        updatedAt: now,
      });
      await tx.insert(agents).values({
        id,
        ownerId: owner.id,
        requestPrivacy: input.requestPrivacy ?? "everyone",
        requestedScopes: inConsentOrder(input.requestedScopes ?? []),
        createdAt: now,
        updatedAt: now,
      });
    }),
  );
  return getAgentMe(deps, id);
}

const agentColumns = {
  id: users.id,
  num: users.num,
  displayName: users.displayName,
  avatarUrl: users.avatarUrl,
  bio: users.bio,
  createdAt: users.createdAt,
  ownerId: agents.ownerId,
  requestPrivacy: agents.requestPrivacy,
  requestedScopes: agents.requestedScopes,
  pausedAt: agents.pausedAt,
  pauseReason: agents.pauseReason,
};
const selectAgents = (deps: CoreDeps) =>
  deps.db.select(agentColumns).from(agents).innerJoin(users, eq(users.id, agents.id));
type AgentRow = Awaited<ReturnType<typeof selectAgents>>[number];

/** The agent's profile as `GET /me` answers it (also built from the auth statement's row). */
export function toAgentMe(
  row: Pick<
    AgentRow,
    | "id"
    | "num"
    | "displayName"
    | "avatarUrl"
    | "bio"
    | "ownerId"
    | "requestPrivacy"
    | "requestedScopes"
    | "createdAt"
  >,
): AgentMe {
  return {
    id: row.id,
    num: row.num,
    displayName: row.displayName,
    avatarUrl: row.avatarUrl,
    userType: "agent",
    bio: row.bio,
    ownerId: row.ownerId,
    requestPrivacy: row.requestPrivacy,
    requestedScopes: inConsentOrder(row.requestedScopes as AgentScope[]),
    createdAt: row.createdAt.toISOString(),
  };
}

/** The console's view of an owned agent: the profile plus its pause state. */
function toOwnedAgent(row: AgentRow): OwnedAgent {
  return {
    ...toAgentMe(row),
    paused:
      row.pausedAt && row.pauseReason
        ? { at: row.pausedAt.toISOString(), reason: row.pauseReason }
        : null,
  };
}

async function selectAgent(deps: CoreDeps, id: string): Promise<AgentRow> {
  const [row] = await selectAgents(deps).where(eq(agents.id, id));
  if (!row) throw new CoreError("not_found", `no agent ${id}`);
  return row;
}

export async function getAgentMe(deps: CoreDeps, agentId: string): Promise<AgentMe> {
  return toAgentMe(await selectAgent(deps, agentId));
}

/** Finds an agent by id or `800-` number. */
export async function findAgent(deps: CoreDeps, ref: string): Promise<OwnedAgent> {
  let id = ref;
  if (AgentNum.safeParse(ref).success) {
    const [row] = await deps.db.select({ id: users.id }).from(users).where(eq(users.num, ref));
    if (!row) throw new CoreError("not_found", `no agent ${ref}`);
    id = row.id;
  }
  return toOwnedAgent(await selectAgent(deps, id));
}

export async function listOwnedAgents(deps: CoreDeps, ownerId: string): Promise<OwnedAgent[]> {
  const rows = await selectAgents(deps)
    .where(eq(agents.ownerId, ownerId))
    .orderBy(asc(users.createdAt));
  return rows.map(toOwnedAgent);
}

/** Whether `ownerId` owns any agent (the console's home: owners land on their agents). */
export async function ownsAnyAgent(deps: CoreDeps, ownerId: string): Promise<boolean> {
  const [row] = await deps.db
    .select({ id: agents.id })
    .from(agents)
    .where(eq(agents.ownerId, ownerId))
    .limit(1);
  return row !== undefined;
}

/** The console's guard: the agent exists and `ownerId` owns it (404 otherwise, no existence leak). */
export async function getOwnedAgent(deps: CoreDeps, ownerId: string, agentId: string) {
  const [row] = await selectAgents(deps).where(
    and(eq(agents.id, agentId), eq(agents.ownerId, ownerId)),
  );
  if (!row) throw new CoreError("not_found", "agent not found");
  return toOwnedAgent(row);
}

/** `PATCH /agent/v1/me`: replaces the given fields; `requestedScopes` affects future adds only. */
export async function updateAgentMe(
  deps: CoreDeps,
  agentId: string,
  change: AgentUpdateMeRequest,
): Promise<AgentMe> {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const profile = {
      ...(change.displayName !== undefined && { displayName: change.displayName }),
      ...(change.bio !== undefined && { bio: change.bio === "" ? null : change.bio }),
      ...(change.avatarUrl !== undefined && { avatarUrl: change.avatarUrl }),
    };
    await tx
      .update(users)
      .set({ ...profile, updatedAt: now })
      .where(eq(users.id, agentId));
    await tx
      .update(agents)
      .set({
        ...(change.requestPrivacy !== undefined && { requestPrivacy: change.requestPrivacy }),
        ...(change.requestedScopes !== undefined && {
          requestedScopes: inConsentOrder(change.requestedScopes),
        }),
        updatedAt: now,
      })
      .where(eq(agents.id, agentId));
    await notifyTopics(tx, await agentViewerTopics(tx, agentId)); // its name and bio, shown
  });
  return getAgentMe(deps, agentId);
}

/** Owner pause: every Agent API call fails `agent_paused` until resumed. Tokens stay valid. */
export async function pauseAgent(deps: CoreDeps, agentId: string): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const updated = await tx
      .update(agents)
      .set({ pausedAt: now, pauseReason: "owner", updatedAt: now })
      .where(eq(agents.id, agentId))
      .returning({ id: agents.id });
    if (updated.length === 0) throw new CoreError("not_found", `no agent ${agentId}`);
    await notifyAgentControl(tx, [agentId]); // its streams and parked polls end at once
    await notifyTopics(tx, await agentViewerTopics(tx, agentId)); // chat headers, owner's pages
  });
}

export async function resumeAgent(deps: CoreDeps, agentId: string): Promise<void> {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const updated = await tx
      .update(agents)
      .set({ pausedAt: null, pauseReason: null, resumedAt: now, updatedAt: now })
      .where(eq(agents.id, agentId))
      .returning({ id: agents.id });
    if (updated.length === 0) throw new CoreError("not_found", `no agent ${agentId}`);
    await notifyTopics(tx, await agentViewerTopics(tx, agentId));
  });
}

/** The message of `agent_paused`, saying who paused it. */
export function pausedMessage(reason: string): string {
  if (reason.startsWith("ceiling:"))
    return `This agent was paused automatically after reaching its daily ${reason.slice(8)} ceiling; its owner can resume it in the console`;
  return "This agent is paused by its owner";
}
