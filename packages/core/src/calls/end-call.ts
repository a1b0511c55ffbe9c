import { type AgentUser, type CallEndedPayload, EndCallRequest } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, inArray, isNotNull, isNull, or, sql } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError, parseInput } from "../errors";
import { appendEvents, type NewEvent } from "../events/append-event";
import { notifyTopics, userTopic } from "../events/notifier";
import { agentUserColumns, toAgentUser } from "../identity/users";
import { newId } from "../ids";
import { capTranscript } from "./cap-transcript";

const { agentContacts, callParticipants, calls, users } = schema;

/**
 * The one way a call enters the service: what the messaging service's call system reports when
 * a call between people ends (the CLI's `call end` too). Stores the call (participants, shared
 * transcript, each person's own summary) and, in the same transaction, tells every agent a
 * participant has in their contacts with `calls:read` granted right now (not blocked):
 * `call.ended` about that participant, with their summary and the transcript capped at 32 KB.
 * No grant, no event; an agent two participants share hears once for each.
 */
export async function endCall(
  deps: CoreDeps,
  request: EndCallRequest,
): Promise<{ callId: string }> {
  const input = parseInput(EndCallRequest, request);
  const people = await findParticipants(
    deps,
    input.participants.map((p) => p.user),
  );
  const now = deps.clock.now();
  const startedAt = new Date(now.getTime() - input.duration * 1000);
  const transcript = input.transcript ?? null;
  const callId = newId("cal");
  const shared = {
    callId,
    participants: people.map(toAgentUser),
    isGroup: input.isGroup,
    startedAt: startedAt.toISOString(),
    endedAt: now.toISOString(),
    duration: input.duration,
    ...capTranscript(transcript),
  };
  await deps.db.transaction(async (tx) => {
    await tx.insert(calls).values({
      id: callId,
      isGroup: input.isGroup,
      startedAt,
      endedAt: now,
      duration: input.duration,
      transcript,
      createdAt: now,
    });
    await tx.insert(callParticipants).values(
      people.map((person, position) => ({
        callId,
        userId: person.id,
        position,
        summary: input.participants[position]?.summary ?? null,
      })),
    );
    const granted = await tx
      .select({ userId: agentContacts.userId, agentId: agentContacts.agentId })
      .from(agentContacts)
      .where(
        and(
          inArray(
            agentContacts.userId,
            people.map((person) => person.id),
          ),
          isNotNull(agentContacts.addedAt),
          isNull(agentContacts.blockedAt),
          sql`'calls:read' = any(${agentContacts.grantedScopes})`,
        ),
      );
    const events = granted.map(({ userId, agentId }): NewEvent => {
      const position = people.findIndex((person) => person.id === userId);
      const payload: CallEndedPayload = {
        ...shared,
        user: shared.participants[position] as AgentUser,
        summary: input.participants[position]?.summary ?? null,
      };
      return { agentId, personId: userId, type: "call.ended", payload };
    });
    await notifyTopics(
      tx,
      people.map((person) => userTopic(person.id, "calls")),
    );
    await appendEvents(tx, now, events);
  });
  return { callId };
}

/** The people on the call, in the order given: each once, each a person (agents do not join calls). */
async function findParticipants(deps: CoreDeps, refs: string[]) {
  const rows = await deps.db
    .select(agentUserColumns)
    .from(users)
    .where(or(inArray(users.id, refs), inArray(users.num, refs)));
  const people = refs.map((ref, i) => {
    const person = rows.find((row) => row.id === ref || row.num === ref);
    if (!person) throw new CoreError("not_found", `No user ${ref}`);
    if (person.userType === "agent")
      throw invalid(i, `${ref} is an agent; agents do not join calls`);
    return person;
  });
  people.forEach((person, i) => {
    if (people.findIndex((p) => p.id === person.id) !== i)
      throw invalid(i, `${refs[i]} is on the call twice`);
  });
  return people;
}

function invalid(index: number, message: string) {
  return new CoreError("validation_error", message, {
    issues: [{ path: `participants.${index}.user`, message }],
  });
}
