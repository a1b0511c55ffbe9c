import { type AgentScope, agentScopes, scopeSentence, surfaceWords } from "@switchboard/contract";
import styles from "./scope-picker.module.css";
import ui from "./ui/layout.module.css";

/** The scopes grouped by what they are about, in consent-card order (read before write). */
const bySurface = Object.entries(surfaceWords).map(([surface, label]) => ({
  label,
  scopes: agentScopes.filter((scope) => scope.startsWith(`${surface}:`)),
}));

/**
 * The requested-scope checkboxes, one group per surface in consent-card order, each box labelled
 * with the sentence a person reads on the consent card (and the scope's API name for the owner).
 */
export function ScopePicker({
  legend,
  selected,
  testId,
}: {
  legend: string;
  selected: readonly AgentScope[];
  testId?: string;
}) {
  return (
    <fieldset className={styles.scopes} data-testid={testId}>
      <legend>{legend}</legend>
      <p className={ui.hint}>People read each line as written here on your agent's consent card.</p>
      {bySurface.map(({ label, scopes }) => (
        <div className={styles.row} key={label}>
          <div className={styles.surface}>{label}</div>
          <div className={styles.lines}>
            {scopes.map((scope) => (
              <label className={ui.check} key={scope}>
                <input
                  type="checkbox"
                  name="scope"
                  value={scope}
                  defaultChecked={selected.includes(scope)}
                />
                <span>
                  {scopeSentence(scope)} <span className={`${ui.mono} ${ui.hint}`}>{scope}</span>
                </span>
              </label>
            ))}
          </div>
        </div>
      ))}
    </fieldset>
  );
}

/** Reads the checked scopes back from a submitted form, in consent-card order. */
export function scopesFrom(form: FormData): AgentScope[] {
  const checked = new Set(form.getAll("scope"));
  return agentScopes.filter((scope) => checked.has(scope));
}
