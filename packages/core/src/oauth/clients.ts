import { schema } from "@switchboard/db";
import { and, eq, gt, lt } from "drizzle-orm";
import { z } from "zod";
import { BoundedMap } from "../bounded-map";
import type { CoreDeps } from "../deps";
import { enforceRateLimit } from "../limits/rate-limit";
import { pinnedRequest } from "../net/pinned-request";
import { newSecret } from "../secrets";
import {
  CLIENT_UNUSED_SECONDS,
  isAllowedRedirectUri,
  metadataDocumentUrl,
  OAuthError,
} from "./rules";

const { oauthClients } = schema;

/** A client as the authorization page and the token endpoint know it. */
export interface OAuthClient {
  clientId: string;
  name: string;
  redirectUris: string[];
  /** A metadata document's host, or a registration nobody vouches for. */
  source: { kind: "metadata"; host: string } | { kind: "registered" };
}

const MAX_DOCUMENT_BYTES = 5 * 1024;
const FETCH_TIMEOUT_MS = 5_000;
const CACHE_MS = 5 * 60_000;
const CACHE_ENTRIES = 500;
/** Registrations a network may make per hour. */
export const REGISTRATIONS_PER_HOUR = 20;

const RedirectUris = z
  .array(z.string().refine(isAllowedRedirectUri, "must be https, or http on a loopback address"))
  .min(1)
  .max(10);
const ClientName = z.string().trim().min(1).max(100);

/** The RFC 7591 registration request fields we read (others are ignored, as it allows). */
const Registration = z.object({
  redirect_uris: RedirectUris,
  client_name: ClientName.optional(),
  token_endpoint_auth_method: z.literal("none").optional(),
  grant_types: z.array(z.enum(["authorization_code", "refresh_token"])).optional(),
  response_types: z.array(z.literal("code")).optional(),
});

/** A Client ID Metadata Document: its `client_id` must be its own URL. */
const MetadataDocument = z.object({
  client_id: z.string(),
  client_name: ClientName.optional(),
  redirect_uris: RedirectUris,
  token_endpoint_auth_method: z.literal("none").optional(),
});

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join(".") || "body"}: ${issue.message}` : "invalid";
}

/**
 * Dynamic Client Registration (RFC 7591) for public clients: rate-limited per network, and a
 * registration nobody authorizes within a week is gone (swept here, a few at a time).
 */
export async function registerClient(deps: CoreDeps, body: unknown, network: string | null) {
  const now = deps.clock.now();
  await enforceRateLimit(
    deps.db,
    now,
    `oauth-register:${network ?? "unknown"}`,
    REGISTRATIONS_PER_HOUR,
    3600,
    "client registrations",
  );
  const parsed = Registration.safeParse(body);
  if (!parsed.success) {
    const onRedirects = parsed.error.issues.some((issue) => issue.path[0] === "redirect_uris");
    throw new OAuthError(
      onRedirects ? "invalid_redirect_uri" : "invalid_client_metadata",
      firstIssue(parsed.error),
    );
  }
  await deps.db.delete(oauthClients).where(lt(oauthClients.expiresAt, now));
  const clientId = newSecret("sbcl_");
  const name = parsed.data.client_name ?? "Unnamed client";
  await deps.db.insert(oauthClients).values({
    id: clientId,
    name,
    redirectUris: parsed.data.redirect_uris,
    createdAt: now,
    expiresAt: new Date(now.getTime() + CLIENT_UNUSED_SECONDS * 1000),
  });
  return {
    client_id: clientId,
    client_id_issued_at: Math.floor(now.getTime() / 1000),
    client_name: name,
    redirect_uris: parsed.data.redirect_uris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

const documents = new BoundedMap<string, { client: OAuthClient; until: number }>(CACHE_ENTRIES);

/** Fetches a metadata document through the outbound address policy, bounded and cached. */
async function fetchDocument(deps: CoreDeps, url: URL): Promise<OAuthClient> {
  const key = url.href;
  const cached = documents.get(key);
  if (cached && cached.until > Date.now()) return cached.client;
  const answer = await pinnedRequest(url, {
    method: "GET",
    headers: { Accept: "application/json" },
    timeoutMs: FETCH_TIMEOUT_MS,
    maxBodyBytes: MAX_DOCUMENT_BYTES,
    policy: { allowInsecureHosts: deps.config.WEBHOOK_ALLOW_INSECURE_HOSTS },
  });
  if (!answer.ok)
    throw new OAuthError(
      "invalid_client",
      answer.reason === "address"
        ? "The client_id URL is not allowed"
        : `The client metadata document could not be read (${answer.reason})`,
    );
  if (answer.status !== 200)
    throw new OAuthError(
      "invalid_client",
      `The client metadata document answered ${answer.status}`,
    );
  let json: unknown;
  try {
    json = JSON.parse(answer.body.toString("utf8"));
  } catch {
    throw new OAuthError("invalid_client", "The client metadata document is not JSON");
  }
  const parsed = MetadataDocument.safeParse(json);
  if (!parsed.success)
    throw new OAuthError("invalid_client", `Client metadata: ${firstIssue(parsed.error)}`);
  if (parsed.data.client_id !== key && parsed.data.client_id !== url.toString())
    throw new OAuthError("invalid_client", "The document's client_id is not its own URL");
  const client: OAuthClient = {
    clientId: parsed.data.client_id,
    name: parsed.data.client_name ?? url.host,
    redirectUris: parsed.data.redirect_uris,
    source: { kind: "metadata", host: url.host },
  };
  documents.set(key, { client, until: Date.now() + CACHE_MS });
  return client;
}

/** The client a `client_id` names: a metadata document's URL, or a live registration. */
export async function resolveClient(deps: CoreDeps, clientId: string): Promise<OAuthClient> {
  if (!clientId) throw new OAuthError("invalid_request", "client_id is required");
  const url = metadataDocumentUrl(clientId, deps.config.WEBHOOK_ALLOW_INSECURE_HOSTS);
  if (url) return fetchDocument(deps, url);
  const [row] = await deps.db
    .select()
    .from(oauthClients)
    .where(and(eq(oauthClients.id, clientId), gt(oauthClients.expiresAt, deps.clock.now())));
  if (!row) throw new OAuthError("invalid_client", "No such client");
  return {
    clientId: row.id,
    name: row.name,
    redirectUris: row.redirectUris,
    source: { kind: "registered" },
  };
}

/** An authorized registration lives another week from now. */
export async function keepClient(deps: CoreDeps, clientId: string): Promise<void> {
  const now = deps.clock.now();
  await deps.db
    .update(oauthClients)
    .set({ expiresAt: new Date(now.getTime() + CLIENT_UNUSED_SECONDS * 1000) })
    .where(eq(oauthClients.id, clientId));
}
