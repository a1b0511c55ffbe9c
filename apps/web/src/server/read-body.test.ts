import { CoreError } from "@switchboard/core";
import { describe, expect, it } from "vitest";
import { BodyBudget, readBodyText } from "./read-body";

/** A body that sends `bytes`, one 64 KB chunk per pull, and holds until `release` resolves. */
function slowBody(bytes: number, release: Promise<void>) {
  let left = bytes;
  let first = true;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!first) await release;
      first = false;
      if (left <= 0) return controller.close();
      const size = Math.min(64 * 1024, left);
      left -= size;
      controller.enqueue(new Uint8Array(size).fill(0x61));
    },
  });
}

const request = (body: ReadableStream<Uint8Array>) =>
  new Request("http://x/", { method: "POST", body, duplex: "half" } as RequestInit);

describe("readBodyText's process budget", () => {
  it("refuses a read that would hold more than the budget at once (429), and frees what it held", async () => {
    const budget = new BodyBudget(160 * 1024);
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // The first read holds 64 KB and waits; the second (128 KB) would hold 192 KB in all.
    const first = readBodyText(request(slowBody(128 * 1024, held)), 1024 * 1024, budget);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const second = await readBodyText(
      request(slowBody(128 * 1024, Promise.resolve())),
      1024 * 1024,
      budget,
    ).catch((error: unknown) => error);
    expect(second).toBeInstanceOf(CoreError);
    expect((second as CoreError).code).toBe("rate_limited");
    expect((second as CoreError).details.retryAfterSeconds).toBe(1);
    release();
    await expect(first).resolves.toHaveLength(128 * 1024);
    expect(budget.used).toBe(0);
    // With nothing else in flight, the same body reads.
    await expect(
      readBodyText(request(slowBody(64 * 1024, Promise.resolve())), 1024 * 1024, budget),
    ).resolves.toHaveLength(64 * 1024);
  });
});
