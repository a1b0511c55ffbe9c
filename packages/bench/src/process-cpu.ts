import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc's CPU times (USER_HZ; 100 on Linux as built everywhere). */
const TICKS_PER_S =
  Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

interface ProcessTimes {
  pid: number;
  ppid: number;
  name: string;
  /** User + system CPU time so far, in ms. */
  cpuMs: number;
}

/**
 * A Postgres process's title (/proc/pid/cmdline): `postgres: [cluster: ]user database host(port)
 * state` for a backend, `postgres: [cluster: ]autovacuum worker database` for a vacuum worker,
 * the process's role (`walwriter`, `checkpointer`) for the server's own helpers.
 */
function postgresTitle(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
  } catch {
    return "";
  }
}

/**
 * Whether a Postgres process works for `database`: its backends and vacuum workers, and the
 * server's shared helpers (postmaster, WAL writer, checkpointer, background writer); not the
 * backends and vacuum workers of the server's other databases (a shared machine's Postgres).
 */
function servesDatabase(pid: number, database: string): boolean {
  const title = postgresTitle(pid);
  if (title.split(" ").includes(database)) return true;
  return !/\(\d+\)|\[local\]|autovacuum worker/.test(title);
}

/** Every process's CPU time so far, from /proc (a process gone between list and read is skipped). */
function allProcesses(): ProcessTimes[] {
  const found: ProcessTimes[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The name is in parentheses and may hold spaces: fields are counted after its `)`.
      const close = stat.lastIndexOf(")");
      const fields = stat.slice(close + 2).split(" ");
      found.push({
        pid: Number(entry),
        ppid: Number(fields[1]),
        name: stat.slice(stat.indexOf("(") + 1, close),
        cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S,
      });
    } catch {}
  }
  return found;
}

export interface CpuSnapshot {
  /** Each named process tree's (a pid and its descendants) CPU time so far, in ms. */
  trees: Record<string, number>;
  /** Each Postgres process's: the postmaster, its backends and helpers (WAL writer, checkpointer). */
  postgres: Map<number, number>;
}

/**
 * CPU time so far of each named process tree and of every Postgres process (with `database`, only
 * those that work for it: see servesDatabase).
 */
export function cpuSnapshot(
  roots: Record<string, number | undefined>,
  database?: string,
): CpuSnapshot {
  const processes = allProcesses();
  const children = new Map<number, ProcessTimes[]>();
  for (const p of processes) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
  const byPid = new Map(processes.map((p) => [p.pid, p]));
  const tree = (pid: number): number =>
    (byPid.get(pid)?.cpuMs ?? 0) +
    (children.get(pid) ?? []).reduce((sum, child) => sum + tree(child.pid), 0);
  return {
    trees: Object.fromEntries(
      Object.entries(roots).map(([name, pid]) => [name, pid ? tree(pid) : 0]),
    ),
    postgres: new Map(
      processes
        .filter((p) => p.name === "postgres" && (!database || servesDatabase(p.pid, database)))
        .map((p) => [p.pid, p.cpuMs]),
    ),
  };
}

/**
 * CPU spent between two snapshots, by tree and by all of Postgres. A Postgres process started in
 * between counts whole; one that ended in between is not seen (the pools' connections live on).
 */
export function cpuSpent(before: CpuSnapshot, after: CpuSnapshot): Record<string, number> {
  let postgres = 0;
  for (const [pid, ms] of after.postgres) postgres += ms - (before.postgres.get(pid) ?? 0);
  const spent: Record<string, number> = { postgres };
  for (const [name, ms] of Object.entries(after.trees))
    spent[name] = ms - (before.trees[name] ?? 0);
  return spent;
}

/** The machine's CPU time so far, all cores, busy (not idle or waiting on I/O), in ms: /proc/stat. */
export function machineBusyMs(): number {
  const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "")
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  // user nice system idle iowait irq softirq steal
  const busy = fields.reduce((sum, n, i) => (i === 3 || i === 4 ? sum : sum + n), 0);
  return (busy * 1000) / TICKS_PER_S;
}
