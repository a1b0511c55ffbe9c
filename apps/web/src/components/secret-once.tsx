"use client";

import { useState } from "react";

/** A secret shown once (token, key) with a copy button and a plain warning. */
export function SecretOnce({
  label,
  value,
  testId,
}: {
  label: string;
  value: string;
  testId: string;
}) {
  const [copied, setCopied] = useState(false);
  return (
    <div className="notice" role="status">
      <strong>{label}</strong> — copy it now; you won't be able to see it again.
      <div className="secret">
        <code data-testid={testId}>{value}</code>
        <button
          type="button"
          className="secondary"
          onClick={async () => {
            await navigator.clipboard?.writeText(value).catch(() => {});
            setCopied(true);
          }}
        >
          {copied ? "Copied" : "Copy"}
        </button>
      </div>
    </div>
  );
}
