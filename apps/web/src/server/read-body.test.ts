import { createServer } from "node:http";
import { connect, type Socket } from "node:net";
import { CoreError } from "@switchboard/core";
import { describe, expect, it } from "vitest";
// @ts-expect-error: plain JavaScript, loaded before Next by `node --import`.
import { bodyReader, EDGE_BODY } from "../../agent-routes.mjs";
import { BodyBudget, type BodyPace, readBodyText } from "./read-body";

const KB = 1024;

/** A body that sends `bytes` in `chunk`-sized pieces, and holds after the first until `release`. */
function slowBody(bytes: number, release: Promise<void>, chunk = 64 * KB) {
  let left = bytes;
  let first = true;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!first) await release;
      first = false;
      if (left <= 0) return controller.close();
      const size = Math.min(chunk, left);
      left -= size;
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
  });
}

/** A body of `pieces` chunks of `chunk` bytes, one every `everyMs`. */
function tricklingBody(pieces: number, chunk: number, everyMs: number) {
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent > 0) await new Promise((resolve) => setTimeout(resolve, everyMs));
      if (sent === pieces) return controller.close();
      sent++;
      controller.enqueue(new Uint8Array(chunk).fill(0x61));
    },
  });
}

const request = (body: ReadableStream<Uint8Array>) =>
  new Request("http://x/", { method: "POST", body, duplex: "half" } as RequestInit);

/** A gate the test opens: bodies built on it hold their first chunk until then. */
function gate() {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { opened, open };
}

const refusal = (read: Promise<string>) => read.then(() => null).catch((error: CoreError) => error);
const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe("readBodyText's process budget", () => {
  it("refuses a read that would hold more than the budget at once (429), and frees what it held", async () => {
    const budget = new BodyBudget(160 * KB, 1024 * KB, 0, 1024 * KB);
    const held = gate();
    // The first read holds 64 KB and waits; the second (128 KB) would hold 192 KB in all.
    const first = readBodyText(request(slowBody(128 * KB, held.opened)), {
      caller: "agent:a",
      budget,
    });
    await tick();
    const second = await refusal(
      readBodyText(request(slowBody(128 * KB, Promise.resolve())), { caller: "agent:b", budget }),
    );
    expect(second).toBeInstanceOf(CoreError);
    expect(second?.code).toBe("rate_limited");
    expect(second?.details.retryAfterSeconds).toBe(1);
    held.open();
    await expect(first).resolves.toHaveLength(128 * KB);
    expect(budget.used).toBe(0);
    expect(budget.byCaller.size).toBe(0);
    // With nothing else in flight, the same body reads.
    await expect(
      readBodyText(request(slowBody(64 * KB, Promise.resolve())), { caller: "agent:b", budget }),
    ).resolves.toHaveLength(64 * KB);
  });
});

describe("readBodyText's share per caller", () => {
  it("refuses a caller's bodies past its share while another caller's read goes through", async () => {
    // Room for 16 chunks in all, 5 per caller.
    const budget = new BodyBudget(16 * 64 * KB, 5 * 64 * KB, 0, 1024 * KB);
    const held = gate();
    // One caller opens five slow uploads: each holds its first 64 KB and waits.
    const uploads = Array.from({ length: 5 }, () =>
      refusal(
        readBodyText(request(slowBody(4 * 64 * KB, held.opened)), {
          caller: "agent:greedy",
          budget,
        }),
      ),
    );
    await tick();
    expect(budget.byCaller.get("agent:greedy")).toBe(5 * 64 * KB);
    // A sixth from the same caller is its own excess: refused.
    const sixth = await refusal(
      readBodyText(request(slowBody(64 * KB, Promise.resolve())), {
        caller: "agent:greedy",
        budget,
      }),
    );
    expect(sixth?.code).toBe("rate_limited");
    expect(sixth?.message).toMatch(/too many of your request bodies/);
    // Someone else's send and a sign-in read in full meanwhile.
    await expect(
      readBodyText(request(slowBody(3 * 64 * KB, Promise.resolve())), {
        caller: "agent:other",
        budget,
      }),
    ).resolves.toHaveLength(3 * 64 * KB);
    await expect(
      readBodyText(request(slowBody(2 * KB, Promise.resolve())), {
        caller: "network:198.51.100.4",
        budget,
      }),
    ).resolves.toHaveLength(2 * KB);
    held.open();
    // The greedy caller's uploads then pass its share as they grow: some are cut, none leak.
    const outcomes = await Promise.all(uploads);
    expect(outcomes.some((outcome) => outcome?.code === "rate_limited")).toBe(true);
    expect(budget.used).toBe(0);
  });

  it("keeps the last of the process budget for small bodies, whoever uploads large ones", async () => {
    // 10 chunks in all, 2 of them kept for bodies of at most 64 KB; any caller up to 8 chunks.
    const budget = new BodyBudget(10 * 64 * KB, 8 * 64 * KB, 2 * 64 * KB, 64 * KB);
    const held = gate();
    // Many callers' large uploads each hold 2 chunks: the fifth is refused at 8 of 10.
    const uploads = ["a", "b", "c", "d", "e"].map((who) =>
      refusal(
        readBodyText(request(slowBody(3 * 64 * KB, held.opened, 128 * KB)), {
          caller: `user:${who}`,
          budget,
        }),
      ),
    );
    await tick();
    expect(budget.used).toBe(8 * 64 * KB);
    expect(await uploads[4]).toMatchObject({ code: "rate_limited" });
    const large = await refusal(
      readBodyText(request(slowBody(3 * 64 * KB, Promise.resolve(), 128 * KB)), {
        caller: "user:f",
        budget,
      }),
    );
    expect(large?.code).toBe("rate_limited");
    // Small bodies still read from the reserve.
    for (const who of ["network:198.51.100.4", "agent:x"])
      await expect(
        readBodyText(request(slowBody(64 * KB, Promise.resolve())), { caller: who, budget }),
      ).resolves.toHaveLength(64 * KB);
    held.open();
    await Promise.all(uploads);
    expect(budget.used).toBe(0);
  });
});

describe("readBodyText's pace", () => {
  const pace: BodyPace = { graceMs: 100, bytesPerSecond: 64 * KB };
  const budget = () => new BodyBudget(1024 * KB, 1024 * KB, 0, 1024 * KB);

  it("cuts a body that stalls with 408 request_timeout, and frees what it held", async () => {
    const never = new Promise<void>(() => {});
    const own = budget();
    const started = Date.now();
    const cut = await refusal(
      readBodyText(request(slowBody(128 * KB, never)), { caller: "agent:a", budget: own, pace }),
    );
    expect(cut?.code).toBe("request_timeout");
    // 100 ms of grace plus 64 KB at 64 KB/s.
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_050);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(own.used).toBe(0);
  });

  it("cuts a body that trickles slower than the floor rate, and reads one that keeps pace", async () => {
    // 1 KB every 100 ms is 10 KB/s, under the 64 KB/s floor: cut once the grace is spent.
    const trickle = await refusal(
      readBodyText(request(tricklingBody(50, KB, 100)), { caller: "a", budget: budget(), pace }),
    );
    expect(trickle?.code).toBe("request_timeout");
    // 8 KB every 100 ms is 80 KB/s: read to its end.
    await expect(
      readBodyText(request(tricklingBody(8, 8 * KB, 100)), { caller: "a", budget: budget(), pace }),
    ).resolves.toHaveLength(64 * KB);
  });
});

describe("readBodyText through the HTTP edge's reader", () => {
  /** A request whose body is the edge's reader over a real socket, as the edge makes it. */
  async function edgeRequest(send: (socket: Socket) => void) {
    let reached: (request: Request) => void = () => {};
    const next = new Promise<Request>((resolve) => {
      reached = resolve;
    });
    const server = createServer((incoming) => {
      // The edge's Request carries no body; its reader is kept beside it.
      const made = new Request("http://x/", { method: "POST" });
      Object.assign(made, { [EDGE_BODY]: bodyReader(incoming) });
      reached(made);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const socket = connect((server.address() as { port: number }).port, "127.0.0.1");
    socket.on("error", () => {});
    socket.write("POST /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n");
    send(socket);
    const done = () => {
      socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    };
    return { request: await next, done };
  }
  const chunked = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;
  const pace: BodyPace = { graceMs: 100, bytesPerSecond: 64 * KB };

  it("reads the body from the Node request, not from the Request's own stream", async () => {
    const { request, done } = await edgeRequest((socket) =>
      socket.write(`${chunked("first;")}${chunked("second;")}0\r\n\r\n`),
    );
    expect(request.body).toBeNull();
    await expect(readBodyText(request, { caller: "agent:a" })).resolves.toBe("first;second;");
    await done();
  });

  it("keeps the pace and the size cap: a stalled body is cut with 408, a large one with 413", async () => {
    const stalled = await edgeRequest((socket) => socket.write(chunked("start;")));
    const cut = await refusal(readBodyText(stalled.request, { caller: "agent:a", pace }));
    expect(cut?.code).toBe("request_timeout");
    await stalled.done();
    const large = await edgeRequest((socket) => socket.write(chunked("a".repeat(2 * KB))));
    const over = await refusal(readBodyText(large.request, { caller: "agent:a", maxBytes: KB }));
    expect(over?.code).toBe("payload_too_large");
    await large.done();
  });
});
