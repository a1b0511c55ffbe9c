import { CodeBlock } from "~/components/code-block";
import styles from "./webhook.module.css";

/** One request and its answer: the headers and body sent, and the start of the answer. */
export function Exchange({
  headers,
  body,
  excerpt,
  testId,
}: {
  headers: Record<string, string> | null;
  body: string | null;
  excerpt: string | null;
  testId?: string;
}) {
  return (
    <div className={styles.detailGrid}>
      <div>
        <h4>Request headers</h4>
        <CodeBlock testId={testId && `${testId}-request-headers`}>
          {headers
            ? Object.entries(headers)
                .map(([name, value]) => `${name}: ${value}`)
                .join("\n")
            : "Not sent yet."}
        </CodeBlock>
      </div>
      <div>
        <h4>Request body</h4>
        <CodeBlock testId={testId && `${testId}-request-body`}>
          {body ?? "Not shown: the person no longer lets this agent see this event."}
        </CodeBlock>
      </div>
      <div>
        <h4>Answer body (first 1 KB)</h4>
        <CodeBlock testId={testId && `${testId}-response-body`}>{excerpt || "(empty)"}</CodeBlock>
      </div>
    </div>
  );
}
