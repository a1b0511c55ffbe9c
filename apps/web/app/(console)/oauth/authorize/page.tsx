import { checkAuthorizationRequest } from "@switchboard/core";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { requestOrigin } from "~/auth/options";
import { getSessionUser } from "~/auth/session";
import { Card } from "~/components/ui/card";
import ui from "~/components/ui/layout.module.css";
import { getDeps } from "~/server/deps";
import { HydrateClient, trpc } from "~/trpc/server";
import { CreateAgent } from "../../agents/_components/create-agent";
import { AuthorizeForm } from "./authorize-form";

export const dynamic = "force-dynamic";

/**
 * The OAuth authorization page (decision 0070): the signed-in owner sees which client asks and
 * where it came from, picks one of their agents, reads what it may do, and allows or denies. A
 * request whose client or redirect URI cannot be trusted is refused here and sends nobody away.
 */
export default async function AuthorizePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  if (!(await getSessionUser())) return null; // the console layout sends them to sign in and back here
  const raw = await searchParams;
  const params = Object.fromEntries(
    Object.entries(raw).flatMap(([key, value]) =>
      typeof value === "string" ? [[key, value]] : [],
    ),
  ) as Record<string, string>;
  const origin = requestOrigin(await headers()) ?? "";
  const deps = getDeps();
  const check = await checkAuthorizationRequest(deps, params, origin);
  if (check.kind === "redirect") redirect(check.to);
  if (check.kind === "fatal")
    return (
      <>
        <title>Authorization refused · Switchboard</title>
        <h1>This connection request cannot be used</h1>
        <Card>
          <p data-testid="oauth-error">{check.error.description}</p>
          <p className={ui.muted}>Go back to the app you came from and try connecting again.</p>
        </Card>
      </>
    );
  const { client } = check.request;
  return (
    <>
      <title>Connect an app · Switchboard</title>
      <h1>
        Connect <span data-testid="oauth-client-name">{client.name}</span>
      </h1>
      <p className={ui.muted} data-testid="oauth-client-source">
        {client.source.kind === "metadata"
          ? `Identified by ${client.source.host}`
          : "Registered by the app itself: not verified"}
      </p>
      <HydrateClient queries={[trpc.agents.list.queryOptions()]}>
        <AuthorizeForm params={params} />
        {/* An owner without the right agent makes one here; the list above picks it up. */}
        <CreateAgent />
      </HydrateClient>
    </>
  );
}
