import { AgentCreatePostRequest, type AgentPost } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError, parseInput } from "../errors";
import type { AgentPrincipal } from "../identity/agent-tokens";
import { pausedMessage } from "../identity/agents";
import { agentUserColumns } from "../identity/users";
import { newId } from "../ids";
import { runSend } from "../sending/send-sequence";
import { reachTopics, toAgentPost } from "./post-shape";

const { agents, posts, users } = schema;

/**
 * `POST /posts`, through the send sequence: the cards are checked; the agent must not be paused
 * (read fresh; a post needs no grant and no contact); the post counts as a message for the
 * per-minute limit and the daily ceiling (no per-recipient limit: it is sent to nobody in
 * particular); then it is stored and everyone it reaches sees it appear in their feed.
 */
export async function createPost(
  deps: CoreDeps,
  principal: Pick<AgentPrincipal, "agentId">,
  request: AgentCreatePostRequest,
): Promise<AgentPost> {
  const { agentId } = principal;
  return runSend(deps, {
    agentId,
    charge: "message",
    prepare: () => parseInput(AgentCreatePostRequest, request),
    access: async () => ({ recipientId: null, author: await activeAuthor(deps, agentId) }),
    store: async (tx, prepared, { author }) => {
      const [post] = await tx
        .insert(posts)
        .values({
          id: newId("pst"),
          authorId: agentId,
          texts: prepared.texts,
          caption: prepared.caption ?? null,
          createdAt: deps.clock.now(),
        })
        .returning();
      return {
        result: toAgentPost({
          post: post as typeof posts.$inferSelect,
          author,
          likeCount: 0,
          commentCount: 0,
          repostCount: 0,
        }),
        wake: await reachTopics(tx, agentId),
      };
    },
  });
}

/** The posting agent as it stands now: `agent_paused` while paused. */
async function activeAuthor(deps: CoreDeps, agentId: string) {
  const [row] = await deps.db
    .select({ user: agentUserColumns, pausedAt: agents.pausedAt, pauseReason: agents.pauseReason })
    .from(agents)
    .innerJoin(users, eq(users.id, agents.id))
    .where(eq(agents.id, agentId));
  if (!row) throw new CoreError("not_found", `No agent ${agentId}`);
  if (row.pausedAt) throw new CoreError("agent_paused", pausedMessage(row.pauseReason ?? "owner"));
  return row.user;
}
