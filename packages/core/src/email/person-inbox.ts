import type { PersonEmailThread, PersonEmailThreadPage } from "@switchboard/contract";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { notifyTopics, userTopic } from "../events/notifier";
import { findUser } from "../identity/users";
import { findPersonThread, readPersonThreads } from "./person-threads";
import { markThreadRead, readThreadEmailPage } from "./threads";

/** The emails a person's thread view opens with: the newest, oldest first. */
export const PERSON_THREAD_PAGE = 100;

/** The threads a person's inbox reads at a time. */
export const PERSON_INBOX_PAGE = 50;

/**
 * A page of a person's inbox: `limit` of their threads, with agents and people, newest activity
 * first, after the thread `before` (404 unless it is one of theirs), and whether more follow.
 */
export async function listPersonEmailThreads(
  deps: CoreDeps,
  userRef: string,
  page: { limit: number; before?: string | undefined } = { limit: PERSON_INBOX_PAGE },
): Promise<{ threads: PersonEmailThread[]; hasMore: boolean }> {
  const user = await findUser(deps, userRef);
  if (page.before !== undefined) await findPersonThread(deps, user.id, page.before);
  const rows = await readPersonThreads(deps, user.id, { ...page, limit: page.limit + 1 });
  return { threads: rows.slice(0, page.limit), hasMore: rows.length > page.limit };
}

/**
 * One thread of the person's with a page of its emails (the newest `limit`, or those before the
 * email `before`), oldest first within the page; 404 for a thread they are not in.
 */
export async function getPersonEmailThread(
  deps: CoreDeps,
  userRef: string,
  threadId: string,
  page: { limit: number; before?: string | undefined } = { limit: PERSON_THREAD_PAGE },
): Promise<PersonEmailThreadPage> {
  const user = await findUser(deps, userRef);
  const [thread] = await readPersonThreads(deps, user.id, { threadId });
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
