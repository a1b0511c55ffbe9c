import type { ReactNode } from "react";
import { formatTime } from "./format";

/** What the console lists of an agent token or a developer key (never the secret itself). */
export interface Credential {
  id: string;
  hint: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

function CredentialState({ credential }: { credential: Credential }) {
  if (credential.revokedAt) return <span className="badge off">revoked</span>;
  if (credential.expiresAt && new Date(credential.expiresAt) <= new Date())
    return <span className="badge off">expired</span>;
  return <span className="badge ok">active</span>;
}

/**
 * Tokens or keys as a table: hint, created, expires, state, and Revoke (after a confirmation
 * that says what stops working). `extra` adds a column (a key's scopes).
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
  if (!items) return null;
  if (items.length === 0) return <p className="empty">No {noun}s yet.</p>;
  return (
    <table data-testid={`${testId}-list`} className="stack-on-phone">
      <thead>
        <tr>
          <th scope="col">{noun.charAt(0).toUpperCase() + noun.slice(1)}</th>
          {extra && <th scope="col">{extra.header}</th>}
          <th scope="col">Created</th>
          <th scope="col">Expires</th>
          <th scope="col">State</th>
          <th scope="col">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {items.map((credential) => (
          <tr key={credential.id} data-testid={`${testId}-row`}>
            <td className="mono cell-main">{credential.hint}</td>
            {extra && (
              <td className="mono" data-label={extra.header}>
                {extra.cell(credential)}
              </td>
            )}
            <td data-label="Created">{formatTime(credential.createdAt)}</td>
            <td data-label="Expires">
              {credential.expiresAt ? formatTime(credential.expiresAt) : "never"}
            </td>
            <td data-label="State">
              <CredentialState credential={credential} />
            </td>
            <td className="actions">
              {!credential.revokedAt && (
                <button
                  type="button"
                  className="danger small"
                  disabled={revoking}
                  aria-label={`Revoke ${noun} ${credential.hint}`}
                  data-testid={`${testId}-revoke`}
                  onClick={() => {
                    if (window.confirm(`Revoke ${noun} ${credential.hint}? ${revokeWarning}`))
                      onRevoke(credential);
                  }}
                >
                  Revoke
                </button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
