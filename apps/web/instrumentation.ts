/** Runs once as the web server starts, before it handles requests. */
export async function register(): Promise<void> {
  // biome-ignore lint/style/noProcessEnv: Next's own variable naming the runtime this runs in.
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { guardRawRequests } = await import("./src/server/raw-requests");
    guardRawRequests();
    const { drainOnSignal, stopWhenDatabaseGone } = await import("./src/server/shutdown");
    drainOnSignal();
    stopWhenDatabaseGone();
  }
}
