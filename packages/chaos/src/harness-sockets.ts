import net from "node:net";
import { isConnectionError, type Ledger } from "./ledger";

/**
 * The harness is the service's client, not what the run tests; yet once in about five CI runs a
 * socket of the harness's own process (no stack, none of our frames) emitted `read ECONNRESET`
 * with no 'error' listener just after the Postgres restart, which ended the run. While the
 * guard is on, an error no listener would hear is written in the ledger instead of ending the
 * process, with where the socket went and where it was opened: a lost connection (tolerated
 * during a fault like any other) or, if it is anything else, a problem that fails the run.
 * Errors that have listeners go to them as before.
 */
export function guardHarnessSockets(ledger: Ledger): () => void {
  const opened = new WeakMap<net.Socket, { to: string; at: string }>();
  const prototype = net.Socket.prototype;
  const { connect, emit } = prototype;
  // emit is inherited (from EventEmitter): restored by deleting the override, not by copying it.
  const own = {
    connect: Object.getOwnPropertyDescriptor(prototype, "connect"),
    emit: Object.getOwnPropertyDescriptor(prototype, "emit"),
  };
  function trackedConnect(this: net.Socket, ...args: unknown[]) {
    // connect(port, host), connect(options) or, from net.connect, connect([options, callback]).
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const { host, port, path } =
      typeof first === "object" && first !== null
        ? (first as { host?: string; port?: number; path?: string })
        : { host: args[1] as string | undefined, port: first as number, path: undefined };
    const at = new Error().stack?.split("\n").slice(2, 8).join(" | ") ?? "";
    opened.set(this, { to: path ?? `${host ?? "localhost"}:${port}`, at });
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  }
  function guardedEmit(this: net.Socket, event: string | symbol, ...args: unknown[]): boolean {
    if (event === "error" && this.listenerCount("error") === 0) {
      const error = args[0] as NodeJS.ErrnoException | undefined;
      const socket = opened.get(this);
      ledger.record(
        "harness socket (no listener)",
        isConnectionError(error) ? "connection" : "exception",
        `${error?.message} [${error?.code}] on a socket to ${socket?.to}, opened at ${socket?.at}`,
      );
      return true;
    }
    return emit.apply(this, [event, ...args] as Parameters<typeof emit>);
  }
  prototype.connect = trackedConnect as typeof connect;
  prototype.emit = guardedEmit as typeof emit;
  return () => {
    for (const [name, descriptor] of Object.entries(own)) {
      if (descriptor) Object.defineProperty(prototype, name, descriptor);
      else delete (prototype as unknown as Record<string, unknown>)[name];
    }
  };
}
