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

/** CPU time so far of each named process tree and of every Postgres process. */
export function cpuSnapshot(roots: Record<string, number | undefined>): CpuSnapshot {
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
    postgres: new Map(processes.filter((p) => p.name === "postgres").map((p) => [p.pid, p.cpuMs])),
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
