"use client";

import type { AgentScope, RequestPrivacy } from "@switchboard/contract";
import { useMutation, useQuery } from "@tanstack/react-query";
import { shownError } from "~/components/errors";
import { FieldError, invalidProps } from "~/components/field-error";
import { onFormSubmit } from "~/components/form";
import { FormError } from "~/components/form-error";
import { PrivacySelect } from "~/components/privacy-select";
import { ScopePicker, scopesFrom } from "~/components/scope-picker";
import { Button } from "~/components/ui/button";
import { Card } from "~/components/ui/card";
import ui from "~/components/ui/layout.module.css";
import { useTRPC } from "~/trpc/client";
import { useInvalidateAgent } from "./invalidate";

interface Profile {
  displayName: string;
  bio: string;
  avatarUrl: string;
  requestPrivacy: RequestPrivacy;
  requestedScopes: AgentScope[];
}

/** Issues from `agents.update` name fields under `change.`, as the input nests them. */
const fields = [
  "change.displayName",
  "change.bio",
  "change.avatarUrl",
  "change.requestPrivacy",
  "change.requestedScopes",
] as const;

/** The profile section: the agent's profile as stored (the layout read it), in its form. */
export function ProfileSection({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const me = useQuery(trpc.agents.get.queryOptions({ agentId })).data?.agent;
  if (!me) return null;
  return (
    <ProfileCard
      agentId={agentId}
      profile={{
        displayName: me.displayName ?? "",
        bio: me.bio ?? "",
        avatarUrl: me.avatarUrl ?? "",
        requestPrivacy: me.requestPrivacy,
        requestedScopes: me.requestedScopes,
      }}
    />
  );
}

/** The agent's public profile: the same change `PATCH /agent/v1/me` makes. */
function ProfileCard({ agentId, profile }: { agentId: string; profile: Profile }) {
  const trpc = useTRPC();
  const invalidate = useInvalidateAgent(agentId);
  const update = useMutation(trpc.agents.update.mutationOptions({ onSuccess: invalidate }));
  const error = shownError(update.error, fields);
  const message = (name: (typeof fields)[number]) => error?.fields[name];

  return (
    <Card aria-labelledby="profile-heading">
      <h2 id="profile-heading">Profile</h2>
      <p className={ui.muted}>What people see on its contact card and the consent card.</p>
      {/* Keyed by the saved profile: a save (or a change made through the API) refills it. */}
      <form
        key={JSON.stringify(profile)}
        className={ui.stack}
        onSubmit={onFormSubmit((form) =>
          update.mutate({
            agentId,
            change: {
              displayName: String(form.get("displayName") ?? ""),
              bio: String(form.get("bio") ?? "") || null,
              avatarUrl: String(form.get("avatarUrl") ?? "").trim() || null,
              requestPrivacy: String(form.get("requestPrivacy")) as RequestPrivacy,
              requestedScopes: scopesFrom(form),
            },
          }),
        )}
      >
        <FormError message={error?.message} testId="profile-error" />
        <label>
          Name
          <input
            name="displayName"
            defaultValue={profile.displayName}
            data-testid="profile-name"
            {...invalidProps("profile-name-error", message("change.displayName"))}
          />
          <FieldError id="profile-name-error" message={message("change.displayName")} />
        </label>
        <label>
          <span>
            Bio <span className={ui.hint}>at most 500 characters</span>
          </span>
          <textarea
            name="bio"
            rows={3}
            defaultValue={profile.bio}
            data-testid="profile-bio"
            {...invalidProps("profile-bio-error", message("change.bio"))}
          />
          <FieldError id="profile-bio-error" message={message("change.bio")} />
        </label>
        <label>
          <span>
            Avatar URL <span className={ui.hint}>an https image address</span>
          </span>
          <input
            name="avatarUrl"
            inputMode="url"
            defaultValue={profile.avatarUrl}
            data-testid="profile-avatar"
            {...invalidProps("profile-avatar-error", message("change.avatarUrl"))}
          />
          <FieldError id="profile-avatar-error" message={message("change.avatarUrl")} />
        </label>
        <PrivacySelect defaultValue={profile.requestPrivacy} />
        <FieldError id="profile-privacy-error" message={message("change.requestPrivacy")} />
        <ScopePicker
          legend="Requested scopes (for future adds; existing grants stay as they are)"
          selected={profile.requestedScopes}
          testId="profile-scopes"
        />
        <FieldError id="profile-scopes-error" message={message("change.requestedScopes")} />
        <div className={ui.row}>
          <Button type="submit" disabled={update.isPending} data-testid="profile-save">
            {update.isPending ? "Saving…" : "Save profile"}
          </Button>
          {update.isSuccess && (
            <span className={ui.success} role="status" data-testid="profile-saved">
              Saved.
            </span>
          )}
        </div>
      </form>
    </Card>
  );
}
