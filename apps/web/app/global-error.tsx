"use client";

import "./globals.css";
import { ErrorView } from "~/components/error-view";

/** The root layout itself failed: the same page, with its own document. */
export default function GlobalError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <html lang="en">
      <body>
        <main className="status-shell" id="main">
          <title>Something went wrong · Switchboard</title>
          <ErrorView reset={reset} digest={error.digest} />
        </main>
      </body>
    </html>
  );
}
