"use client";

import "./globals.css";
import { ErrorView } from "~/components/error-view";
import { OutsidePage } from "~/components/status-page";

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
        <OutsidePage>
          <title>Something went wrong · Switchboard</title>
          <ErrorView reset={reset} digest={error.digest} />
        </OutsidePage>
      </body>
    </html>
  );
}
