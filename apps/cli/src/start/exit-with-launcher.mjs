// Loaded (--import) into every web and worker process the launcher starts (service.ts). When
// the launcher is gone, however it went (SIGKILL included, which it cannot relay), the process
// is re-parented: it then stops as on SIGTERM (finishing what it can), and for good a few
// seconds later, instead of serving on as an orphan nobody will stop.
import { isMainThread } from "node:worker_threads";

const GRACE_MS = 5000;

if (isMainThread) {
  const launcher = process.ppid;
  const watch = setInterval(() => {
    if (process.ppid === launcher) return;
    clearInterval(watch);
    console.error(`switchboard: the launcher (pid ${launcher}) is gone; stopping`);
    setTimeout(() => process.exit(1), GRACE_MS).unref();
    process.kill(process.pid, "SIGTERM");
  }, 500);
  watch.unref();
}
