import { PersonEmailInput, type PersonEmailSent } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { and, eq, inArray } from "drizzle-orm";
import { assertActive, findPerson } from "../consent/contact-standing";
import type { CoreDeps } from "../deps";
import { CoreError, parseInput } from "../errors";
import { appendEvents } from "../events/append-event";
import { notifyTopics, userTopic } from "../events/notifier";
import { findUser, toAgentUser } from "../identity/users";
import { chargePersonSend } from "../limits/person-sends";
import { emailReceivedEvent, toEmailMessage } from "./email-shape";
import { findPersonThread } from "./person-threads";
import { createThread, insertEmail } from "./threads";

const { agentContacts } = schema;

type UserRow = Awaited<ReturnType<typeof findUser>>;

/**
 * A person writes an email (console, CLI): a new thread to one recipient (1:1) or several (a
 * group), or a reply in a thread they are in. Emailing an agent follows the chat's rules: the
 * agent must be in their contacts and not blocked (for a group, checked when it is started; a
 * reply in a group reaches the agents the sender has not blocked). A new thread to a suspended
 * account is refused. Each email counts against the sender's per-minute limits (like an agent's
 * sends: limits/person-sends.ts). In one transaction: the email, every person in the thread woken, and, in a
 * 1:1 thread, `email.received` for the agent, masked when read without the sender's
 * `emails:read`. An agent in a group thread gets no event (it cannot open the thread).
 */
export async function sendPersonEmail(
  deps: CoreDeps,
  fromUserRef: string,
  input: unknown,
): Promise<PersonEmailSent> {
  const { to, threadId, subject, content } = parseInput(PersonEmailInput, input);
  const sender = await findPerson(deps, fromUserRef);
  assertActive(sender);
  const existing = threadId ? await findPersonThread(deps, sender.id, threadId) : null;
  const recipients = existing
    ? await checkNamed(deps, existing.others, to ?? [])
    : await resolveRecipients(deps, sender.id, to ?? []);
  const startsGroup = !existing && recipients.length > 1;
  const isGroup = existing?.thread.isGroup ?? startsGroup;

  const agents = recipients.filter((user) => user.userType === "agent");
  const contacts = agents.length
    ? await deps.db
        .select()
        .from(agentContacts)
        .where(
          and(
            eq(agentContacts.userId, sender.id),
            inArray(
              agentContacts.agentId,
              agents.map((agent) => agent.id),
            ),
          ),
        )
    : [];
  const contactOf = (agentId: string) => contacts.find((c) => c.agentId === agentId);
  if (!existing || !isGroup)
    for (const agent of agents) {
      const contact = contactOf(agent.id);
      const name = agent.displayName ?? agent.num;
      if (contact?.blockedAt)
        throw new CoreError("blocked", `You blocked ${name}; unblock it to email it`);
      if (!contact?.addedAt)
        throw new CoreError("not_a_contact", `Add ${name} to your contacts before emailing it`);
    }
  if (!existing) {
    const suspended = recipients.find((user) => user.suspendedAt);
    if (suspended)
      throw new CoreError(
        "recipient_suspended",
        `${suspended.displayName ?? suspended.num}'s account is suspended`,
      );
  }

  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    await chargePersonSend(tx, deps, {
      senderId: sender.id,
      recipientIds: recipients.map((user) => user.id),
    });
    const thread =
      existing?.thread ??
      (await createThread(tx, now, {
        subject: subject ?? "",
        startedById: sender.id,
        participantIds: [sender.id, ...recipients.map((user) => user.id)],
      }));
    const row = await insertEmail(tx, now, { threadId: thread.id, senderId: sender.id, content });
    const message = toEmailMessage(row, sender.num);
    const from = toAgentUser(sender);
    const people = [sender, ...recipients].filter((user) => user.userType !== "agent");
    await notifyTopics(
      tx,
      people.map((user) => userTopic(user.id, `thread:${thread.id}`)),
    );
    // An agent hears only of 1:1 threads: group threads are ones the Agent API can neither
    // list nor open (400 unsupported), so an event for one would name a thread it cannot read
    // (decision 0039).
    if (!thread.isGroup)
      await appendEvents(
        tx,
        now,
        agents
          .filter((agent) => !contactOf(agent.id)?.blockedAt)
          .map((agent) => emailReceivedEvent(agent.id, thread, from, message)),
      );
    return { threadId: thread.id, message };
  });
}

/** A new thread's recipients, each named once; the sender may not be one of them. */
async function resolveRecipients(deps: CoreDeps, senderId: string, refs: string[]) {
  const found = new Map<string, UserRow>();
  for (const ref of refs) {
    const user = await findUser(deps, ref);
    if (user.id === senderId)
      throw new CoreError("validation_error", "You cannot email yourself", {
        issues: [{ path: "to", message: "names the sender" }],
      });
    found.set(user.id, user);
  }
  return [...found.values()];
}

/** A reply's recipients are the thread's others; any `to` given must name some of them. */
async function checkNamed(deps: CoreDeps, others: UserRow[], refs: string[]) {
  for (const ref of refs) {
    const user = await findUser(deps, ref);
    if (!others.some((other) => other.id === user.id))
      throw new CoreError("validation_error", `${ref} is not in this thread`, {
        issues: [{ path: "to", message: `${ref} is not in this thread` }],
      });
  }
  return others;
}
