import { formatNumber } from "~/components/format";
import type { RouterOutputs } from "~/trpc/router";
import { Exchange } from "./exchange";
import styles from "./webhook.module.css";

/** The answer to "Send test event": worked or not, in words, with what went over the wire. */
export function TestResult({ result }: { result: RouterOutputs["webhooks"]["sendTest"] }) {
  return (
    <div
      className={`${styles.testResult} ${result.ok ? styles.ok : styles.bad}`}
      role="status"
      data-testid="webhook-test-result"
    >
      <p>
        <strong>
          {result.ok
            ? `Test event delivered: answered ${result.httpStatus} in ${formatNumber(result.latencyMs)} ms.`
            : "Test event not delivered."}
        </strong>{" "}
        {result.problem}
      </p>
      <details>
        <summary>What was sent and what came back</summary>
        <Exchange
          headers={result.request.headers}
          body={result.request.body}
          excerpt={result.excerpt}
        />
      </details>
    </div>
  );
}
