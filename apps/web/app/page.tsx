import { listOwnedAgents } from "@switchboard/core";
import { redirect } from "next/navigation";
import { getSessionUser } from "~/auth/session";
import { getDeps } from "~/server/deps";

export const dynamic = "force-dynamic";

/** The console's home: an owner lands on their agents, anyone else on their chats. */
export default async function Home() {
  const user = await getSessionUser();
  if (!user) redirect("/signin");
  const owns = (await listOwnedAgents(getDeps(), user.id)).length > 0;
  redirect(owns ? "/agents" : "/chats");
}
