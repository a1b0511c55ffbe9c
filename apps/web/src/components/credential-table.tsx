import type { ReactNode } from "react";
import { Badge } from "~/components/ui/badge";
import { formatTime } from "./format";
import { ConfirmButton } from "./ui/confirm-dialog";
import { EmptyState } from "./ui/empty-state";
import ui from "./ui/layout.module.css";
import { cell, Table } from "./ui/table";
import { TimeAgo, useReaderTimes } from "./ui/time";

/** What the console lists of an agent token or a developer key (never the secret itself). */
export interface Credential {
  id: string;
  hint: string;
  name: string | null;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
  lastUsedAt: string | null;
  lastUsedFamily: "ipv4" | "ipv6" | null;
}

/** "3 min ago · IPv6" (it is kept to the minute); "never" before the first call. */
function LastUsed({ credential }: { credential: Credential }) {
  if (!credential.lastUsedAt) return <span className={ui.muted}>never</span>;
  const family =
    credential.lastUsedFamily === "ipv6" ? "IPv6" : credential.lastUsedFamily && "IPv4";
  return (
    <>
      <TimeAgo iso={credential.lastUsedAt} />
      {family && <span className={ui.muted}> · {family}</span>}
    </>
  );
}

function CredentialState({ credential }: { credential: Credential }) {
  if (credential.revokedAt) return <Badge tone="off">revoked</Badge>;
  if (credential.expiresAt && new Date(credential.expiresAt) <= new Date())
    return <Badge tone="off">expired</Badge>;
  return <Badge tone="ok">active</Badge>;
}

/**
 * Tokens or keys as a table: name and hint, created, expires, last used (and from which address
 * family), state, and Revoke (after the console's confirmation dialog says what stops working).
 * `extra` adds a column (a key's scopes).
 */
export function CredentialTable<C extends Credential>({
  items,
  noun,
  testId,
  revokeWarning,
  revoking,
  onRevoke,
  extra,
}: {
  items: C[] | undefined;
  /** "token" or "key", as the table's text says it. */
  noun: string;
  testId: string;
  revokeWarning: string;
  revoking: boolean;
  onRevoke: (credential: C) => void;
  extra?: { header: string; cell: (credential: C) => ReactNode };
}) {
  useReaderTimes();
  if (!items) return null;
  if (items.length === 0) return <EmptyState>No {noun}s yet.</EmptyState>;
  return (
    <Table stackOnPhone data-testid={`${testId}-list`}>
      <thead>
        <tr>
          <th scope="col">{noun.charAt(0).toUpperCase() + noun.slice(1)}</th>
          {extra && <th scope="col">{extra.header}</th>}
          <th scope="col">Created</th>
          <th scope="col">Expires</th>
          <th scope="col">Last used</th>
          <th scope="col">State</th>
          <th scope="col">
            <span className={ui.visuallyHidden}>Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {items.map((credential) => (
          <tr key={credential.id} data-testid={`${testId}-row`}>
            <td className={cell.main} data-testid={`${testId}-name`}>
              {credential.name && <strong>{credential.name} </strong>}
              <span className={ui.mono}>{credential.hint}</span>
            </td>
            {extra && (
              <td className={ui.mono} data-label={extra.header}>
                {extra.cell(credential)}
              </td>
            )}
            <td data-label="Created">{formatTime(credential.createdAt)}</td>
            <td data-label="Expires">
              {credential.expiresAt ? formatTime(credential.expiresAt) : "never"}
            </td>
            <td data-label="Last used" data-testid={`${testId}-last-used`}>
              <LastUsed credential={credential} />
            </td>
            <td data-label="State">
              <CredentialState credential={credential} />
            </td>
            <td className={cell.actions}>
              {!credential.revokedAt && (
                <ConfirmButton
                  variant="danger"
                  small
                  disabled={revoking}
                  ariaLabel={`Revoke ${noun} ${credential.name ?? credential.hint}`}
                  testId={`${testId}-revoke`}
                  title={`Revoke ${noun} ${credential.name ? `“${credential.name}” ` : ""}${credential.hint}?`}
                  body={revokeWarning}
                  confirmLabel={`Revoke ${noun}`}
                  onConfirm={() => onRevoke(credential)}
                >
                  Revoke
                </ConfirmButton>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
