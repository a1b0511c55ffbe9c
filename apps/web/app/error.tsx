"use client";

import { ErrorView } from "~/components/error-view";
import { OutsidePage } from "~/components/status-page";

/** A page outside the console (sign-in, sign-up) crashed. */
export default function RootError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <OutsidePage>
      <title>Something went wrong · Switchboard</title>
      <ErrorView reset={reset} digest={error.digest} />
    </OutsidePage>
  );
}
