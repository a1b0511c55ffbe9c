import { redirect } from "next/navigation";
import { getSessionUser } from "~/auth/session";

export const dynamic = "force-dynamic";

export default async function Home() {
  redirect((await getSessionUser()) ? "/agents" : "/signin");
}
