import net from "node:net";
import { expect, it } from "vitest";
import { guardHarnessSockets } from "./harness-sockets";
import { Ledger } from "./ledger";

it("writes a harness socket's unheard reset in the ledger, naming where the socket went", async () => {
  const server = net.createServer((socket) => socket.resetAndDestroy());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  const ledger = new Ledger();
  const unguard = guardHarnessSockets(ledger);
  try {
    // No 'error' listener: unguarded, the reset would end this process.
    const socket = new net.Socket();
    socket.connect(port, "127.0.0.1");
    await new Promise((resolve) => socket.once("close", resolve));
  } finally {
    unguard();
    server.close();
  }
  expect(ledger.problems).toHaveLength(1); // no fault was in progress
  expect(ledger.problems[0]).toMatchObject({
    kind: "harness socket (no listener)",
    outcome: "connection",
  });
  expect(ledger.problems[0]?.detail).toContain(
    `[ECONNRESET] on a socket to 127.0.0.1:${port}, opened at`,
  );
  expect(ledger.problems[0]?.detail).toContain("harness-sockets.test.ts");
  // Unguarded again: the prototype is as it was.
  expect(Object.hasOwn(net.Socket.prototype, "emit")).toBe(false);
  expect(Object.hasOwn(net.Socket.prototype, "connect")).toBe(true);
});
