import { redirect } from "next/navigation";
import { getSessionUser, homePath } from "~/auth/session";

export const dynamic = "force-dynamic";

/** The console's address: an owner lands on their agents, anyone else on their chats. */
export default async function Home() {
  const user = await getSessionUser();
  if (!user) redirect("/signin");
  redirect(await homePath(user));
}
