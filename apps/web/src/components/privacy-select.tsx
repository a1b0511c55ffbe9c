import type { RequestPrivacy } from "@switchboard/contract";

export const privacyLabels: Record<RequestPrivacy, string> = {
  everyone: "Everyone",
  contacts_of_contacts: "Contacts of contacts",
  nobody: "Nobody (no new contacts)",
};

/** Who may add the agent as a contact. */
export function PrivacySelect({ defaultValue }: { defaultValue: RequestPrivacy }) {
  return (
    <label>
      Who may add it
      <select name="requestPrivacy" defaultValue={defaultValue} data-testid="request-privacy">
        {(Object.keys(privacyLabels) as RequestPrivacy[]).map((value) => (
          <option key={value} value={value}>
            {privacyLabels[value]}
          </option>
        ))}
      </select>
    </label>
  );
}
