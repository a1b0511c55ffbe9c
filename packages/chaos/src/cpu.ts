import { cpuSnapshot, cpuSpent, machineBusyMs } from "@switchboard/bench/process-cpu";
import type { ServiceProcess } from "./cluster";

/** CPU time spent during the load, in ms, by process group. */
export interface CpuUse {
  seconds: number;
  /** Both web processes, both workers, the Postgres processes serving the run's database. */
  web: number;
  workers: number;
  postgres: number;
  /** This process: the agents' HTTP clients, streams and long-polls, people's sends through core, webhook receivers. */
  harness: number;
  /** The machine's busy CPU not counted above (other sessions, the kernel). */
  neighbours: number;
}

const SAMPLE_MS = 1000;

function sample(processes: ServiceProcess[], database: string) {
  const pids = Object.fromEntries(processes.map((p) => [p.name, p.pid()]));
  return {
    pids,
    cpu: cpuSnapshot(pids, database),
    harness: process.cpuUsage(),
    machine: machineBusyMs(),
  };
}

/**
 * Counts the CPU the cluster's processes, Postgres (for `database`) and this process spend from
 * `start()` to `stop()`. Sampled every second: a process SIGKILLed loses at most its last second,
 * and its restarted successor counts whole (it started after the sample before).
 */
export class CpuMeter {
  private readonly spent = { web: 0, workers: 0, postgres: 0, harness: 0, machine: 0 };
  private timer: ReturnType<typeof setInterval> | undefined;
  private startedAt = 0;
  private last: ReturnType<typeof sample>;

  constructor(
    private readonly processes: ServiceProcess[],
    private readonly database: string,
  ) {
    this.last = sample(processes, database);
  }

  private tick(): void {
    const now = sample(this.processes, this.database);
    const spent = cpuSpent(this.last.cpu, now.cpu);
    for (const p of this.processes) {
      const same = now.pids[p.name] === this.last.pids[p.name];
      const ms = same ? (spent[p.name] ?? 0) : (now.cpu.trees[p.name] ?? 0);
      this.spent[p.role === "web" ? "web" : "workers"] += ms;
    }
    this.spent.postgres += spent.postgres ?? 0;
    const harness = process.cpuUsage(this.last.harness);
    this.spent.harness += (harness.user + harness.system) / 1000;
    this.spent.machine += now.machine - this.last.machine;
    this.last = now;
  }

  start(): void {
    this.last = sample(this.processes, this.database);
    this.startedAt = performance.now();
    this.timer = setInterval(() => this.tick(), SAMPLE_MS);
  }

  stop(): CpuUse {
    clearInterval(this.timer);
    this.tick();
    const { machine, ...ours } = this.spent;
    const counted = Object.values(ours).reduce((sum, ms) => sum + ms, 0);
    return {
      seconds: (performance.now() - this.startedAt) / 1000,
      ...ours,
      neighbours: Math.max(0, machine - counted),
    };
  }
}
