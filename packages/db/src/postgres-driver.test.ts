import net from "node:net";
import postgres from "postgres";
import { expect, inject, it } from "vitest";

// The driver we install is postgres.js 3.4.9 with the patches in vendor/postgres. Without
// next-write.patch,
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

// stale-query.patch: a connection whose socket closed mid-query kept that query as its own. The
// next socket's startup error (Postgres refusing connections, as while it restarts) then waited
// for a ReadyForQuery that never came: the waiting query hung through reconnects, and the first
// connect that succeeded later handed it the stale error. The chaos run saw a person's message
// fail with "the database system is shutting down" 15 s after Postgres was back.
it("a query refused at connect fails then, not later with a stale error", async () => {
  const adminUrl = inject("testDatabase").adminUrl;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  // Postgres refuses a second connection of a role limited to one: a real startup error.
  const role = `sb_one_${Math.random().toString(36).slice(2, 10)}`;
  const url = new URL(adminUrl);
  url.username = role;
  url.password = "one-connection";
  await admin.unsafe(`create role ${role} login password 'one-connection' connection limit 1`);
  const sql = postgres(url.href, { max: 1, onnotice: () => {}, backoff: () => 0.02 });
  const holder = postgres(url.href, { max: 1, onnotice: () => {} });
  const backendGone = async (pid: number) => {
    while ((await admin`select 1 from pg_stat_activity where pid = ${pid}`).length > 0)
      await new Promise((resolve) => setTimeout(resolve, 20));
  };
  try {
    const [first] = await sql`select pg_backend_pid() as pid`;
    const sleeping = sql`select pg_sleep(30)`.catch((error: { code?: string }) => error.code);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await admin`select pg_terminate_backend(${first?.pid as number})`;
    expect(await sleeping).toMatch(/^(57P01|CONNECTION_CLOSED)$/);
    await backendGone(first?.pid as number);

    const [held] = await holder`select pg_backend_pid() as pid`;
    const refused = await Promise.race([
      sql`select 1`.then(
        () => "answered",
        (error: { code?: string }) => error.code,
      ),
      new Promise((resolve) => setTimeout(() => resolve("still waiting"), 3000)),
    ]);
    expect(refused).toBe("53300"); // too many connections for the role

    await holder.end({ timeout: 0 });
    await backendGone(held?.pid as number);
    const [row] = await sql`select 2 as n`;
    expect(row?.n).toBe(2);
  } finally {
    await sql.end({ timeout: 0 });
    await holder.end({ timeout: 0 });
    await admin.unsafe(`drop role if exists ${role}`);
    await admin.end({ timeout: 5 });
  }
});

/** A pool of `max` connections whose socket writes are counted. */
function countingPool(max: number) {
  const { hostname, port } = new URL(inject("testDatabase").adminUrl);
  const writes = { count: 0 };
  const sql = postgres(inject("testDatabase").adminUrl, {
    max,
    onnotice: () => {},
    socket: () =>
      new Promise<net.Socket>((resolve) => {
        const socket = net.connect(Number(port), hostname.replace(/^\[|\]$/g, ""));
        const write = socket.write;
        socket.write = function (this: net.Socket, ...args: Parameters<net.Socket["write"]>) {
          writes.count++;
          return write.apply(this, args);
        } as net.Socket["write"];
        socket.once("connect", () => resolve(socket));
      }),
  } as postgres.Options<Record<string, never>>);
  return { sql, writes };
}

// With vendor/postgres/pipelined-begin.patch a transaction's first statements go out with its
// BEGIN instead of a round trip after it: a one-statement transaction is two writes, not three.
it("sends a transaction's first statement with its BEGIN", async () => {
  const { sql, writes } = countingPool(1);
  try {
    await sql`select 1`; // connected
    writes.count = 0;
    const [row] = await sql.begin((tx) => tx`select 2 as two`);
    expect(row?.two).toBe(2);
    expect(writes.count).toBe(2);
  } finally {
    await sql.end({ timeout: 0 });
  }
});

// ...and the connection stays the transaction's own: a query of the pool waits for it to end
// instead of being sent along on it (where it would see the transaction's uncommitted rows).
it("keeps other queries off a transaction's connection, its statements in order", async () => {
  const { sql } = countingPool(1);
  try {
    await sql`create temporary table pipelined (n int)`;
    const rolledBack = sql
      .begin(async (tx) => {
        const first = tx`insert into pipelined values (1)`;
        const second = tx`insert into pipelined select max(n) + 1 from pipelined`;
        await Promise.all([first, second]);
        const seen = await tx`select array_agg(n order by n) as ns from pipelined`;
        expect(seen[0]?.ns).toEqual([1, 2]);
        await new Promise((resolve) => setTimeout(resolve, 50));
        throw new Error("roll back");
      })
      .catch((error: Error) => error.message);
    const outside = sql`select count(*)::int as count from pipelined`;
    expect(await rolledBack).toBe("roll back");
    expect((await outside)[0]?.count).toBe(0);
  } finally {
    await sql.end({ timeout: 0 });
  }
});

// transaction-onclose.patch: a finished transaction left its close handler on the connection,
// and the handler's promise kept the async context the transaction ran in (in the web process,
// the whole request) until that connection ran another transaction or closed.
it("keeps nothing of a finished transaction's caller on its connection", async () => {
  const { AsyncLocalStorage } = await import("node:async_hooks");
  const context = new AsyncLocalStorage<{ body: Buffer }>();
  const sql = postgres(inject("testDatabase").adminUrl, { max: 1, onnotice: () => {} });
  try {
    const transaction = () => sql.begin((tx) => tx`select 1`);
    await transaction(); // the connection opens outside any caller
    // The caller exists only inside this function, so only the driver could keep it.
    const transact = async () => {
      const caller = { body: Buffer.alloc(64 * 1024) };
      await context.run(caller, transaction);
      return new WeakRef(caller);
    };
    expect(await collected(await transact())).toBe(true);
  } finally {
    await sql.end({ timeout: 5 });
  }
});

// origin-stack.patch: the driver keeps a stack trace of each statement's first call, to say where
// a failed query came from. Unformatted, V8 kept that trace's frames, and with them what the
// first caller's functions close over, for the life of the process.
it("keeps nothing of a statement's first caller", async () => {
  const sql = postgres(inject("testDatabase").adminUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`select 1`; // connected
    const firstCall = async () => {
      const caller = { body: Buffer.alloc(64 * 1024) };
      // This statement's text is run here for the first time, by a function that keeps `caller`.
      const read = () => sql`select ${caller.body.length}::int as size`;
      expect((await read())[0]?.size).toBe(64 * 1024);
      return new WeakRef(caller);
    };
    expect(await collected(await firstCall())).toBe(true);
  } finally {
    await sql.end({ timeout: 5 });
  }
});

/**
 * Whether a weak reference's target is collected. A weak reference keeps its target until the
 * current job ends, and the driver may still be finishing callbacks: a few tries, while what is
 * kept stays through all.
 */
async function collected(ref: WeakRef<object>): Promise<boolean> {
  const { setFlagsFromString } = await import("node:v8");
  const { runInNewContext } = await import("node:vm");
  setFlagsFromString("--expose-gc");
  const collectGarbage = runInNewContext("gc") as () => void;
  for (let tries = 0; tries < 10 && ref.deref(); tries++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    collectGarbage();
  }
  return ref.deref() === undefined;
}
