"use client";

import { ErrorView } from "~/components/error-view";

/** A console page crashed; the navigation stays so the person can go elsewhere. */
export default function ConsoleError({
  error,
  reset,
}: {
  error: Error & { digest?: string };
  reset: () => void;
}) {
  return (
    <>
      <title>Something went wrong · Switchboard</title>
      <ErrorView reset={reset} digest={error.digest} />
    </>
  );
}
