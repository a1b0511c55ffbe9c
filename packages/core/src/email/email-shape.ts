import type {
  AgentEmailMessage,
  AgentScope,
  AgentUser,
  EmailMessage,
  EmailReceivedStored,
} from "@switchboard/contract";
import type { schema } from "@switchboard/db";
import type { NewEvent } from "../events/append-event";
import { readDenied } from "../events/event-visibility";

type EmailRow = typeof schema.emailMessages.$inferSelect;
type ContactRow = typeof schema.agentContacts.$inferSelect;

/** A stored email as its sender wrote it (what people see). */
export function toEmailMessage(row: EmailRow, senderNum: string): EmailMessage {
  return {
    id: row.id,
    threadId: row.threadId,
    senderId: row.senderId,
    senderNum,
    content: row.content,
    createdAt: row.createdAt.toISOString(),
  };
}

/**
 * What the agent may read of a person's email now: `emails:read` in their grant while the agent
 * is in their contacts, not blocked and their account not suspended (the standing every read
 * needs, as for events); nothing otherwise.
 */
export function mayReadEmails(
  contact: Pick<ContactRow, "addedAt" | "blockedAt" | "grantedScopes"> | null,
  person: { suspendedAt: Date | null },
): boolean {
  return (
    !!contact?.addedAt &&
    !contact.blockedAt &&
    !person.suspendedAt &&
    (contact.grantedScopes as AgentScope[]).includes("emails:read")
  );
}

/**
 * An email as the agent sees it: its own always; the person's masked (`content: null` and
 * `accessDenied`) unless `readable`.
 */
export function toAgentEmailMessage(
  email: EmailMessage,
  agentId: string,
  person: AgentUser,
  readable: boolean,
): AgentEmailMessage {
  if (readable || email.senderId === agentId) return email;
  const { message } = readDenied(person, "emails:read");
  return { ...email, content: null, accessDenied: { scope: "emails:read", message } };
}

/** The thread subject as the agent sees it: null unreadable, unless the agent started the thread. */
export function agentSubject(
  thread: { subject: string; startedById: string | null },
  agentId: string,
  readable: boolean,
): string | null {
  return readable || thread.startedById === agentId ? thread.subject : null;
}

/**
 * `email.received` for a person's email to an agent, stored whole with the person: whether the
 * agent sees the email and subject is decided by their grant when the event is read
 * (events/event-visibility.ts), which keeps the subject of a thread the agent started.
 */
export function emailReceivedEvent(
  agentId: string,
  thread: { id: string; subject: string; startedById: string | null },
  from: AgentUser,
  email: EmailMessage,
): NewEvent {
  const payload: EmailReceivedStored = {
    threadId: thread.id,
    subject: thread.subject,
    from,
    email,
    agentStartedThread: thread.startedById === agentId,
  };
  return { agentId, personId: from.id, type: "email.received", payload };
}
