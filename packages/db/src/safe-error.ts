/**
 * Errors as the logs may show them. A failed query's error carries what was bound to it —
 * drizzle puts `params: …` in its message, and Postgres' `detail` quotes row values (`Key
 * (email)=(…)`) — and those are webhook secrets, message text, emails. Loggers print this
 * instead of the error: names, SQLSTATE, constraint and table, the query text with its `$n`
 * placeholders, and the stack frames; never parameters, details or quoted values.
 */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    parts.push(depth === 0 ? describeOne(current) : `caused by ${describeOne(current)}`);
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join("\n");
}

/** An Error to hand on (a job's failure, say) whose message and stack are `describeError`'s. */
export function safeError(error: unknown): Error {
  const safe = new Error(describeError(error).split("\n")[0]);
  safe.stack = describeError(error);
  return safe;
}

const quoted = /"(?:[^"]|"")*"|'(?:[^']|'')*'|\([^()]*\)=\([^()]*\)/g;

function describeOne(error: unknown): string {
  if (!(error instanceof Error)) return `non-error thrown (${typeof error})`;
  const name = error.constructor?.name ?? error.name;
  const frames = (error.stack ?? "")
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .join("\n");
  let head: string;
  if (name === "DrizzleQueryError") {
    const query = (error as { query?: string }).query ?? "";
    head = `${name}: Failed query: ${query}`;
  } else if (name === "PostgresError") {
    const pg = error as Error & {
      code?: string;
      constraint_name?: string;
      table_name?: string;
      column_name?: string;
    };
    const where = [
      pg.table_name && `table ${pg.table_name}`,
      pg.column_name && `column ${pg.column_name}`,
      pg.constraint_name && `constraint ${pg.constraint_name}`,
    ].filter(Boolean);
    head = `${name} ${pg.code ?? ""}: ${pg.message.replace(quoted, "…")}${where.length ? ` (${where.join(", ")})` : ""}`;
  } else {
    head = `${name}: ${error.message.replace(/\nparams: [\s\S]*$/, "")}`;
  }
  return frames ? `${head}\n${frames}` : head;
}

/**
 * SQLSTATEs and client codes that mean "the database is out of reach right now" (restarting,
 * failing over, our connection cut), not "this request is wrong": connection exceptions (08…),
 * admin/crash shutdown and "starting up" (57P01-57P03), too many connections (53300), and what
 * postgres.js and Node report for a connection that closed or never opened.
 */
const unavailableCodes = new Set([
  "57P01",
  "57P02",
  "57P03",
  "53300",
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
]);

/** True when `error` (or what caused it) is the database being briefly unreachable. */
export function isDatabaseUnavailable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string" && (unavailableCodes.has(code) || code.startsWith("08")))
      return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
