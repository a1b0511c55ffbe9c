"use client";

import { useRef, useState } from "react";
import styles from "./secret-once.module.css";
import { Button } from "./ui/button";

/** Copies text; falls back to a selection copy where the Clipboard API is missing (plain http). */
async function copyText(text: string, element: HTMLElement | null): Promise<boolean> {
  try {
    if (navigator.clipboard) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the selection copy
  }
  if (!element) return false;
  const range = document.createRange();
  range.selectNodeContents(element);
  const selection = window.getSelection();
  selection?.removeAllRanges();
  selection?.addRange(range);
  return document.execCommand("copy");
}

/**
 * A secret shown once (agent token, developer key): the value, a Copy button, and a plain
 * warning that it cannot be shown again — only its hash is kept.
 */
export function SecretOnce({
  label,
  value,
  testId,
  note = "Copy it now and keep it somewhere safe. You won't see it again: Switchboard keeps only a hash of it.",
}: {
  label: string;
  value: string;
  testId: string;
  note?: string;
}) {
  const [copy, setCopy] = useState<"idle" | "copied" | "failed">("idle");
  const code = useRef<HTMLElement>(null);
  return (
    <div className={styles.box} role="status" data-testid={`${testId}-box`}>
      <div>
        <strong>{label}</strong>
        <p className={styles.note}>{note}</p>
      </div>
      <div className={styles.secret}>
        <code ref={code} data-testid={testId}>
          {value}
        </code>
        <Button
          variant="secondary"
          onClick={async () => setCopy((await copyText(value, code.current)) ? "copied" : "failed")}
          data-testid={`${testId}-copy`}
        >
          {copy === "copied" ? "Copied" : "Copy"}
        </Button>
      </div>
      {copy === "failed" && (
        <p className={styles.note}>Copying was blocked; select the text and copy it by hand.</p>
      )}
    </div>
  );
}
