import net from "node:net";
import postgres from "postgres";
import { expect, inject, it } from "vitest";

// The driver we install is postgres.js 3.4.9 with vendor/postgres/next-write.patch. Without it,
// a connection whose socket closed while a small write waited for the next turn of the event
// loop kept the stale write timer: it never sent anything again (every query on it timed out),
// or wrote to the null socket and threw where no caller could catch it. Postgres restarting
// under load does exactly that: every socket closes in one turn while rejected work is retried.
it("a pooled connection that closed with a write pending works again", async () => {
  const { hostname, port } = new URL(inject("testDatabase").adminUrl);
  const sockets: net.Socket[] = [];
  let onNextClose: (() => void) | null = null;
  const sql = postgres(inject("testDatabase").adminUrl, {
    max: 2,
    connect_timeout: 3,
    onnotice: () => {},
    // Our own sockets, so the test can close them and act between two closes (a driver option
    // its types do not declare).
    socket: () =>
      new Promise<net.Socket>((resolve) => {
        const socket = net.connect(Number(port), hostname.replace(/^\[|\]$/g, ""));
        sockets.push(socket);
        // Registered before the driver's own listener: runs first when this socket closes.
        socket.on("close", () => {
          const run = onNextClose;
          onNextClose = null;
          run?.();
        });
        socket.once("connect", () => resolve(socket));
      }),
  } as postgres.Options<Record<string, never>>);
  try {
    await Promise.all([sql`select pg_sleep(0.05)`, sql`select pg_sleep(0.05)`]);
    expect(sockets).toHaveLength(2);
    // The first close starts a query; it lands on the second connection, whose socket closes
    // in the same turn of the event loop, before the query's write went out.
    let startedDuringClose: Promise<unknown> | undefined;
    onNextClose = () => {
      startedDuringClose = sql`select 1`.catch((error: { code?: string }) => error.code);
    };
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await startedDuringClose).toBe("CONNECTION_CLOSED");

    // Both connections answer again (two at once, so the pool must use both).
    const answers = await Promise.all(
      [1, 2].map((n) =>
        sql`select pg_sleep(0.05), ${n}::int as n`.then(
          ([row]) => row?.n,
          (error: { code?: string }) => error.code,
        ),
      ),
    );
    expect(answers).toEqual([1, 2]);
  } finally {
    await sql.end({ timeout: 0 });
  }
});
