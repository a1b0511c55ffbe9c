"use client";

import { ErrorView } from "~/components/error-view";

/** A page outside the console (sign-in, sign-up) crashed. */
export default function RootError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <main className="status-shell" id="main">
      <title>Something went wrong · Switchboard</title>
      <ErrorView reset={reset} digest={error.digest} />
    </main>
  );
}
