import "server-only";
import { redirect } from "next/navigation";
import { getServerSession } from "next-auth";
import { getAuthOptions, type SessionUser } from "./options";

/** The signed-in console user, or null. Awaits the options, whose secret may come from Postgres. */
export async function getSessionUser(): Promise<SessionUser | null> {
  const session = await getServerSession(await getAuthOptions());
  const user = session?.user;
  return user?.id && user.num ? { id: user.id, num: user.num, name: user.name ?? null } : null;
}

/** For console pages: the signed-in user, or a redirect to sign in. */
export async function requireSessionUser(): Promise<SessionUser> {
  const user = await getSessionUser();
  if (!user) redirect("/signin");
  return user;
}

/** For the sign-in and sign-up pages: someone already signed in goes to the console. */
export async function redirectIfSignedIn(): Promise<void> {
  if (await getSessionUser()) redirect("/agents");
}
