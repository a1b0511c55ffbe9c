import type { PersonEmailThread, PersonEmailThreadPage } from "@switchboard/contract";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { notifyTopics, userTopic } from "../events/notifier";
import { findUser } from "../identity/users";
import { findPersonThread, readPersonThreads } from "./person-threads";
import { markThreadRead, readThreadEmailPage } from "./threads";

/** The emails a person's thread view opens with: the newest, oldest first. */
export const PERSON_THREAD_PAGE = 100;

/** A person's inbox: every thread they are in, with agents and people, newest activity first. */
export async function listPersonEmailThreads(
  deps: CoreDeps,
  userRef: string,
): Promise<PersonEmailThread[]> {
  const user = await findUser(deps, userRef);
  return readPersonThreads(deps, user.id);
}

/**
 * One thread of the person's with a page of its emails (the newest `limit`, or those before the
 * email `before`), oldest first within the page; 404 for a thread they are not in.
 */
export async function getPersonEmailThread(
  deps: CoreDeps,
  userRef: string,
  threadId: string,
  page: { limit: number; before?: string } = { limit: PERSON_THREAD_PAGE },
): Promise<PersonEmailThreadPage> {
  const user = await findUser(deps, userRef);
  const [thread] = await readPersonThreads(deps, user.id, threadId);
  if (!thread) throw new CoreError("not_found", `No email thread ${threadId}`);
  const { emails, hasMore } = await readThreadEmailPage(deps, threadId, page);
  return { thread, messages: emails, hasMore };
}

/** The person has read the thread up to its newest email; their other open tabs are woken. */
export async function markEmailThreadReadByPerson(
  deps: CoreDeps,
  userRef: string,
  threadId: string,
): Promise<{ ok: true }> {
  const user = await findUser(deps, userRef);
  await findPersonThread(deps, user.id, threadId);
  await deps.db.transaction(async (tx) => {
    if (await markThreadRead(tx, threadId, user.id))
      await notifyTopics(tx, [userTopic(user.id, `thread:${threadId}`)]);
  });
  return { ok: true };
}
