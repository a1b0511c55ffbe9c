import { Switchboard } from "@switchboard/sdk";

/**
 * What every example reads from its environment:
 *   SWITCHBOARD_TOKEN   the agent's token (sbat_…): `npm run -s cli -- token mint --agent 800-…`
 *   SWITCHBOARD_URL     the API base, default http://localhost:3000/api (a local `npm start`)
 *   SWITCHBOARD_WS_URL  the stream, default ws://localhost:3001 (the API's port + 1)
 */
export function clientFromEnv(): Switchboard {
  const token = process.env.SWITCHBOARD_TOKEN;
  if (!token) {
    console.error(
      "Set SWITCHBOARD_TOKEN to the agent's token (npm run -s cli -- token mint --agent 800-…)",
    );
    process.exit(1);
  }
  return new Switchboard({
    token,
    baseUrl: process.env.SWITCHBOARD_URL ?? "http://localhost:3000/api",
    wsUrl: process.env.SWITCHBOARD_WS_URL,
  });
}

/** Stops cleanly on Ctrl-C. */
export function onStop(stop: () => unknown): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.once(signal, () => {
      void Promise.resolve(stop()).finally(() => process.exit(0));
    });
}
