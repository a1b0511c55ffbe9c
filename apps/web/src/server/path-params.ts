/**
 * Path parameters are checked before anything uses them (decision 0034): a value that is not
 * what the service mints is no such thing, answered as missing, and never reaches a query or a
 * lookup. Agent API routes check theirs against the operation registry (`api-route.ts`); these
 * are for the console's own routes.
 */

/** An id as `newId` mints them (`msg_3k9x…`): a short lowercase prefix, `_`, base36. */
export function isMintedId(value: string, prefix: string): boolean {
  return (
    value.length <= prefix.length + 65 &&
    value.startsWith(`${prefix}_`) &&
    /^[0-9a-z]+$/.test(value.slice(prefix.length + 1))
  );
}

/** `name`'s entry in a fixed table, never one inherited from Object (`constructor`, `__proto__`). */
export function ownEntry<T>(table: Readonly<Record<string, T>>, name: string): T | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}
