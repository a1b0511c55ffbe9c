import "server-only";
import { redirect } from "next/navigation";
import { getServerSession } from "next-auth";
import { getAuthOptions, type SessionUser } from "./options";

/** The signed-in console user, or null. */
export async function getSessionUser(): Promise<SessionUser | null> {
  const session = await getServerSession(await getAuthOptions());
  const user = session?.user as Partial<SessionUser> | undefined;
  return user?.id && user.num ? { id: user.id, num: user.num, name: user.name ?? null } : null;
}

/** For console pages: the signed-in user, or a redirect to sign in. */
export async function requireSessionUser(): Promise<SessionUser> {
  const user = await getSessionUser();
  if (!user) redirect("/signin");
  return user;
}
