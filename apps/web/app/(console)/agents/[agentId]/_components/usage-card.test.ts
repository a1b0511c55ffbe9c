import { describe, expect, it } from "vitest";
import { nextUtcMidnight } from "~/components/live-updates";
import { usageExpiresAt } from "./usage-card";

const usage = (requests: number, messages: number, resetSeconds = 25) => ({
  day: "2026-11-26",
  usage: { messages: 3, proposals: 0, refused: 0 },
  ceilings: { messages: 100, proposals: 10, refused: 10 },
  perMinute: {
    requests: { count: requests, limit: 60, resetSeconds },
    messages: { count: messages, limit: 30, resetSeconds },
  },
});

describe("when the agent page re-reads its usage without a wake-up", () => {
  const readAt = Date.parse("2026-11-26T23:40:35Z");

  it("at the end of the minute its rates counted something in", () => {
    expect(usageExpiresAt(usage(2, 0), readAt)).toBe(readAt + 25_000);
    expect(usageExpiresAt(usage(0, 1), readAt)).toBe(readAt + 25_000);
    expect(usageExpiresAt(usage(1, 0, 0), readAt)).toBe(readAt + 1000); // never at once, again
  });

  it("otherwise at midnight UTC, when the day's counts and the charts' days roll over", () => {
    expect(usageExpiresAt(usage(0, 0), readAt)).toBe(Date.parse("2026-11-27T00:00:00Z"));
    expect(nextUtcMidnight(Date.parse("2026-11-27T00:00:00Z"))).toBe(
      Date.parse("2026-11-28T00:00:00Z"),
    );
  });
});
