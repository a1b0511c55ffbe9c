/**
 * What an error was caused by, at the bottom of its chain of `cause`s: a driver's or fetch's
 * error (ECONNREFUSED, say) under a wrapper's "Failed query: <sql>" or "fetch failed". Only
 * Errors are followed; an error with no Error as its cause is its own root. Imports nothing,
 * so a lean entry point (the CLI's `mcp`) takes it as `@switchboard/core/root-cause`.
 */
export function rootCause(error: unknown): unknown {
  let root = error;
  while (root instanceof Error && root.cause instanceof Error) root = root.cause;
  return root;
}
