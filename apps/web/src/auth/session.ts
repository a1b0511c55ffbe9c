import "server-only";
import { consoleSessionStanding, ownsAnyAgent, type SessionStanding } from "@switchboard/core";
import { redirect } from "next/navigation";
import { getServerSession } from "next-auth";
import { getDeps } from "~/server/deps";
import { getAuthOptions, type SessionUser } from "./options";

/**
 * The request's console session as it stands now: the person its cookie names and their
 * standing, read from the database (decision 0010). A session signed out (or of a removed
 * account, or from before sessions had ids) is no session: null.
 */
export async function getSession(): Promise<{
  user: SessionUser;
  standing: SessionStanding;
} | null> {
  const session = await getServerSession(await getAuthOptions());
  const user = session?.user;
  if (!user?.id || !user.num || !user.sessionId) return null;
  const standing = await consoleSessionStanding(getDeps(), user.id, user.sessionId);
  if (standing === "ended" || standing === "gone") return null;
  return {
    user: { id: user.id, num: user.num, name: user.name ?? null, sessionId: user.sessionId },
    standing,
  };
}

/** The signed-in console user, or null. */
export async function getSessionUser(): Promise<SessionUser | null> {
  return (await getSession())?.user ?? null;
}

/** For console pages: the signed-in user, or a redirect to sign in. */
export async function requireSessionUser(): Promise<SessionUser> {
  const user = await getSessionUser();
  if (!user) redirect("/signin");
  return user;
}

/** The console's home for a person: an owner lands on their agents, anyone else on their chats. */
export async function homePath(user: SessionUser): Promise<"/agents" | "/chats"> {
  return (await ownsAnyAgent(getDeps(), user.id)) ? "/agents" : "/chats";
}

/** For the sign-in and sign-up pages: someone already signed in goes straight to their home. */
export async function redirectIfSignedIn(): Promise<void> {
  const user = await getSessionUser();
  if (user) redirect(await homePath(user));
}
