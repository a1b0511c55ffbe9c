/**
 * What the chaos run saw, written as it happens: every request's outcome by kind, the windows
 * in which a fault was in progress, and everything the checks compare at the end.
 */
export type Outcome = number | "connection";

export interface Problem {
  atMs: number;
  kind: string;
  outcome: Outcome | string;
  detail: string;
}

/** A fault and the time until every process answered again. */
export interface Fault {
  what: string;
  atMs: number;
  recoveryMs?: number;
}

/** How long after a fault has healed its failures still count as the fault's (in-flight work). */
const GRACE_MS = 5000;

export class Ledger {
  readonly started = performance.now();
  readonly outcomes = new Map<string, Map<string, number>>();
  /** Failures the run tolerates: 503 or a lost connection while a fault was in progress. */
  readonly tolerated: Problem[] = [];
  /** Failures it does not: everything else that was not a success. */
  readonly problems: Problem[] = [];
  readonly faults: Fault[] = [];
  /** Stream reconnects (after a close the client did not ask for). */
  reconnects = 0;

  now(): number {
    return Math.round(performance.now() - this.started);
  }

  /**
   * Records an outcome; a failure is tolerated only if it is 503/connection and the request was
   * in flight during a fault: `startedMs` (from `now()`) is when it began, so a call that waited
   * out a restart and failed after the fault's grace still counts as the fault's.
   */
  record(kind: string, outcome: Outcome | string, detail = "", startedMs?: number): void {
    const byOutcome = this.outcomes.get(kind) ?? new Map<string, number>();
    this.outcomes.set(kind, byOutcome);
    byOutcome.set(String(outcome), (byOutcome.get(String(outcome)) ?? 0) + 1);
    if (typeof outcome === "number" && outcome < 400) return;
    const problem = { atMs: this.now(), kind, outcome, detail };
    if (
      (outcome === 503 || outcome === "connection") &&
      this.inFault(startedMs ?? problem.atMs, problem.atMs)
    )
      this.tolerated.push(problem);
    else this.problems.push(problem);
  }

  beginFault(what: string): Fault {
    const fault: Fault = { what, atMs: this.now() };
    this.faults.push(fault);
    return fault;
  }

  endFault(fault: Fault, recoveryMs: number): void {
    fault.recoveryMs = recoveryMs;
  }

  /** Whether [fromMs, toMs] overlaps a fault, from its start to the end of its grace. */
  private inFault(fromMs: number, toMs: number): boolean {
    return this.faults.some(
      (fault) =>
        toMs >= fault.atMs &&
        (fault.recoveryMs === undefined || fromMs <= fault.atMs + fault.recoveryMs + GRACE_MS),
    );
  }

  total(kind?: string): number {
    let sum = 0;
    for (const [name, byOutcome] of this.outcomes)
      if (!kind || name === kind) for (const n of byOutcome.values()) sum += n;
    return sum;
  }
}

/**
 * An error and its causes on one line, each with its code: a driver's error is wrapped (drizzle's
 * "Failed query: …", fetch's "fetch failed"), and the cause is what tells a fault from a bug.
 */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    const line = typeof message === "string" ? message.split("\n")[0] : String(current);
    const text = (line ?? "").slice(0, 120);
    parts.push(code === undefined ? text : `${text} [${String(code)}]`);
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join(" <- ");
}

/** A failure that means "the database or the process went away", as opposed to a wrong answer. */
export function isConnectionError(error: unknown): boolean {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (
      typeof code === "string" &&
      (/^(08|57P0)/.test(code) ||
        [
          "CONNECTION_CLOSED",
          "CONNECTION_ENDED",
          "CONNECTION_DESTROYED",
          "CONNECT_TIMEOUT",
          "ECONNREFUSED",
          "ECONNRESET",
          "EPIPE",
          "UND_ERR_SOCKET",
        ].includes(code))
    )
      return true;
    if (typeof message === "string" && /terminating connection|fetch failed/.test(message))
      return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
