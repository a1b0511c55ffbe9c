import { readFileSync } from "node:fs";
import path from "node:path";
import { type AgentMe, Switchboard, SwitchboardError } from "@switchboard/sdk";

/**
 * What every example reads from its environment:
 *   SWITCHBOARD_TOKEN   the agent's token (sbat_…): `npm run -s cli -- token mint --agent 800-…`
 *   SWITCHBOARD_URL     the API base; default: the running `npm start` (as the CLI finds it),
 *                       else http://localhost:3000/api
 *   SWITCHBOARD_WS_URL  the stream; default: the running `npm start`'s, else the API's port + 1
 */

/** What a running `npm start` publishes in `.data/instance.json` (the CLI reads it the same way). */
function runningInstance(): { webUrl: string; wsUrl: string } | null {
  const dataDir =
    process.env.SWITCHBOARD_DATA_DIR ?? path.resolve(import.meta.dirname, "..", ".data");
  try {
    const info = JSON.parse(readFileSync(path.join(dataDir, "instance.json"), "utf8"));
    process.kill(info.pid, 0); // a stale file from a killed run is ignored
    return info;
  } catch {
    return null;
  }
}

/** The API base the examples call (see above). */
export function baseUrlFromEnv(): string {
  return (
    process.env.SWITCHBOARD_URL ?? `${runningInstance()?.webUrl ?? "http://localhost:3000"}/api`
  );
}

export function clientFromEnv(): Switchboard {
  const token = process.env.SWITCHBOARD_TOKEN;
  if (!token) {
    console.error(
      "Set SWITCHBOARD_TOKEN to the agent's token (npm run -s cli -- token mint --agent 800-…)",
    );
    process.exit(1);
  }
  const running = runningInstance();
  return new Switchboard({
    token,
    baseUrl: baseUrlFromEnv(),
    wsUrl: process.env.SWITCHBOARD_WS_URL ?? running?.wsUrl,
  });
}

/**
 * The client and the agent's profile; when the service is not there or refuses the token, one
 * line that says so (not a stack trace) and exit 1.
 */
export async function connect(): Promise<{ client: Switchboard; me: AgentMe }> {
  const client = clientFromEnv();
  try {
    return { client, me: await client.getMe(undefined, { maxRetries: 0 }) };
  } catch (error) {
    const where = baseUrlFromEnv();
    if (error instanceof SwitchboardError && error.status === 401)
      console.error(
        `${where} refused the token (${error.code}): mint a new one with npm run -s cli -- token mint --agent 800-…`,
      );
    else if (error instanceof SwitchboardError && error.status > 0)
      console.error(`${where} answered ${error.status} ${error.code}: ${error.message}`);
    else
      console.error(
        `Switchboard is not reachable at ${where}: is it running (npm start)? Set SWITCHBOARD_URL if it runs elsewhere.`,
      );
    process.exit(1);
  }
}

/** Stops cleanly on Ctrl-C. */
export function onStop(stop: () => unknown): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => {
      void Promise.resolve(stop()).finally(() => process.exit(0));
    });
}
