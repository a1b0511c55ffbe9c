"use client";

import { type AgentScope, agentScopes, type RequestPrivacy } from "@switchboard/contract";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { use } from "react";
import { shownError } from "~/components/errors";
import { onFormSubmit } from "~/components/form";
import { SecretOnce } from "~/components/secret-once";
import { useTRPC } from "~/trpc/client";

export default function AgentPage({ params }: { params: Promise<{ agentId: string }> }) {
  const { agentId } = use(params);
  const trpc = useTRPC();
  const agent = useQuery(trpc.agents.get.queryOptions({ agentId }, { refetchInterval: 5000 }));

  if (agent.error) return <p className="form-error">{agent.error.message}</p>;
  if (!agent.data) return <p className="muted">Loading…</p>;
  const { agent: me, usage } = agent.data;

  return (
    <>
      <div className="page-head">
        <div>
          <p className="muted">
            <Link href="/agents">Agents</Link> /
          </p>
          <h1 data-testid="agent-title">{me.displayName}</h1>
          <p className="mono muted">{me.num}</p>
        </div>
        <PauseControl agentId={agentId} paused={me.paused} />
      </div>
      <UsageCard usage={usage} />
      <TokensCard agentId={agentId} />
      <ProfileCard
        key={JSON.stringify(me)}
        agentId={agentId}
        profile={{
          displayName: me.displayName ?? "",
          bio: me.bio ?? "",
          avatarUrl: me.avatarUrl ?? "",
          requestPrivacy: me.requestPrivacy,
          requestedScopes: me.requestedScopes,
        }}
      />
    </>
  );
}

function useInvalidateAgent(agentId: string) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries(trpc.agents.get.queryFilter({ agentId })),
      queryClient.invalidateQueries(trpc.agents.list.queryFilter()),
    ]);
}

function PauseControl({
  agentId,
  paused,
}: {
  agentId: string;
  paused: { at: string; reason: string } | null;
}) {
  const trpc = useTRPC();
  const invalidate = useInvalidateAgent(agentId);
  const pause = useMutation(trpc.agents.pause.mutationOptions({ onSuccess: invalidate }));
  const resume = useMutation(trpc.agents.resume.mutationOptions({ onSuccess: invalidate }));
  if (!paused)
    return (
      <div className="row">
        <span className="badge ok" data-testid="agent-state">
          active
        </span>
        <button
          type="button"
          className="danger"
          onClick={() => pause.mutate({ agentId })}
          disabled={pause.isPending}
          data-testid="agent-pause"
        >
          Pause agent
        </button>
      </div>
    );
  const automatic = paused.reason.startsWith("ceiling:");
  return (
    <div className="stack" style={{ justifyItems: "end" }}>
      <div className="row">
        <span className="badge warn" data-testid="agent-state">
          paused
        </span>
        <button
          type="button"
          onClick={() => resume.mutate({ agentId })}
          disabled={resume.isPending}
          data-testid="agent-resume"
        >
          Resume
        </button>
      </div>
      <span className="muted" data-testid="pause-reason">
        {automatic
          ? `Paused automatically: daily ${paused.reason.slice(8)} ceiling reached`
          : "Paused by you"}{" "}
        · {new Date(paused.at).toLocaleString()}
      </span>
    </div>
  );
}

interface Usage {
  day: string;
  usage: Record<"messages" | "proposals" | "refused", number>;
  ceilings: Record<"messages" | "proposals" | "refused", number>;
  perMinute: Record<
    "requests" | "messages",
    { count: number; limit: number; resetSeconds: number }
  >;
}

function Meter({
  label,
  value,
  max,
  testId,
}: {
  label: string;
  value: number;
  max: number;
  testId: string;
}) {
  const share = Math.min(100, Math.round((value / max) * 100));
  return (
    <div className="meter" data-testid={testId}>
      <span>{label}</span>
      {/* The numbers beside the bar say it all; the bar is decoration for sighted users. */}
      <div className="bar" aria-hidden="true">
        <span style={{ width: `${share}%` }} className={share >= 80 ? "high" : undefined} />
      </div>
      <span className="mono">
        {value} / {max}
      </span>
    </div>
  );
}

function UsageCard({ usage }: { usage: Usage }) {
  return (
    <section className="card stack">
      <h2>Usage</h2>
      <p className="muted">
        Today ({usage.day}, UTC). Reaching a daily ceiling pauses the agent until you resume it.
      </p>
      <Meter
        label="Messages"
        value={usage.usage.messages}
        max={usage.ceilings.messages}
        testId="usage-messages"
      />
      <Meter
        label="Proposals"
        value={usage.usage.proposals}
        max={usage.ceilings.proposals}
        testId="usage-proposals"
      />
      <Meter
        label="Refused sends"
        value={usage.usage.refused}
        max={usage.ceilings.refused}
        testId="usage-refused"
      />
      <p className="muted">This minute (resets in {usage.perMinute.requests.resetSeconds} s):</p>
      <Meter
        label="API requests"
        value={usage.perMinute.requests.count}
        max={usage.perMinute.requests.limit}
        testId="rate-requests"
      />
      <Meter
        label="Messages"
        value={usage.perMinute.messages.count}
        max={usage.perMinute.messages.limit}
        testId="rate-messages"
      />
    </section>
  );
}

function TokensCard({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.tokens.list.queryOptions({ agentId }));
  const refresh = () => queryClient.invalidateQueries(trpc.tokens.list.queryFilter({ agentId }));
  const mint = useMutation(trpc.tokens.mint.mutationOptions({ onSuccess: refresh }));
  const revoke = useMutation(trpc.tokens.revoke.mutationOptions({ onSuccess: refresh }));
  const error = shownError(mint.error ?? revoke.error);

  return (
    <section className="card stack">
      <h2>Tokens</h2>
      <p className="muted">
        Agents call the API with <code>Authorization: Bearer agent:&lt;token&gt;</code>.
      </p>
      {error && <p className="form-error">{error.message}</p>}
      <form
        className="row"
        onSubmit={onFormSubmit((form) => {
          const expires = String(form.get("expires") ?? "");
          mint.mutate({
            agentId,
            expiresAt: expires ? new Date(expires).toISOString() : undefined,
          });
        })}
      >
        <label className="row" style={{ fontWeight: 400 }}>
          Expires (optional)
          <input type="datetime-local" name="expires" style={{ width: "auto" }} />
        </label>
        <button type="submit" disabled={mint.isPending} data-testid="token-mint">
          Mint token
        </button>
      </form>
      {mint.data && (
        <SecretOnce label="Your new token" value={mint.data.token} testId="token-value" />
      )}
      {tokens.data && tokens.data.length > 0 && (
        <table data-testid="token-list">
          <thead>
            <tr>
              <th>Token</th>
              <th>Created</th>
              <th>Expires</th>
              <th>State</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {tokens.data.map((token) => {
              const expired = token.expiresAt !== null && new Date(token.expiresAt) <= new Date();
              return (
                <tr key={token.id}>
                  <td className="mono">{token.hint}</td>
                  <td>{new Date(token.createdAt).toLocaleString()}</td>
                  <td>{token.expiresAt ? new Date(token.expiresAt).toLocaleString() : "never"}</td>
                  <td>
                    {token.revokedAt ? (
                      <span className="badge off">revoked</span>
                    ) : expired ? (
                      <span className="badge off">expired</span>
                    ) : (
                      <span className="badge ok">active</span>
                    )}
                  </td>
                  <td>
                    {!token.revokedAt && (
                      <button
                        type="button"
                        className="danger"
                        onClick={() => {
                          if (
                            window.confirm(
                              `Revoke ${token.hint}? Calls using it will fail at once.`,
                            )
                          )
                            revoke.mutate({ agentId, tokenId: token.id });
                        }}
                      >
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </section>
  );
}

interface Profile {
  displayName: string;
  bio: string;
  avatarUrl: string;
  requestPrivacy: RequestPrivacy;
  requestedScopes: AgentScope[];
}

function ProfileCard({ agentId, profile }: { agentId: string; profile: Profile }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateAgent(agentId);
  const update = useMutation(trpc.agents.update.mutationOptions({ onSuccess: invalidate }));
  const error = shownError(update.error);
  const field = (name: string) =>
    error?.fields[`change.${name}`] ? (
      <span className="field-error">{error.fields[`change.${name}`]}</span>
    ) : null;

  return (
    <section className="card">
      <h2>Profile</h2>
      <form
        className="stack"
        onSubmit={onFormSubmit((form) =>
          update.mutate({
            agentId,
            change: {
              displayName: String(form.get("displayName")),
              bio: String(form.get("bio")) || null,
              avatarUrl: String(form.get("avatarUrl")) || null,
              requestPrivacy: String(form.get("requestPrivacy")) as RequestPrivacy,
              requestedScopes: form.getAll("scope") as AgentScope[],
            },
          }),
        )}
      >
        {error && <p className="form-error">{error.message}</p>}
        <label>
          Name
          <input name="displayName" defaultValue={profile.displayName} data-testid="profile-name" />
          {field("displayName")}
        </label>
        <label>
          Bio <span className="hint">at most 500 characters</span>
          <textarea name="bio" rows={3} defaultValue={profile.bio} />
          {field("bio")}
        </label>
        <label>
          Avatar URL <span className="hint">https only</span>
          <input name="avatarUrl" defaultValue={profile.avatarUrl} data-testid="profile-avatar" />
          {field("avatarUrl")}
        </label>
        <label>
          Who may add it
          <select name="requestPrivacy" defaultValue={profile.requestPrivacy}>
            <option value="everyone">Everyone</option>
            <option value="contacts_of_contacts">Contacts of contacts</option>
            <option value="nobody">Nobody</option>
          </select>
        </label>
        <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
          <legend className="hint">
            Requested scopes (future adds only; existing grants stay as they are)
          </legend>
          <div className="checks">
            {agentScopes.map((scope) => (
              <label key={scope}>
                <input
                  type="checkbox"
                  name="scope"
                  value={scope}
                  defaultChecked={profile.requestedScopes.includes(scope)}
                />
                <span className="mono">{scope}</span>
              </label>
            ))}
          </div>
        </fieldset>
        <div className="row">
          <button type="submit" disabled={update.isPending} data-testid="profile-save">
            Save profile
          </button>
          {update.isSuccess && <span className="muted">Saved.</span>}
        </div>
      </form>
    </section>
  );
}
