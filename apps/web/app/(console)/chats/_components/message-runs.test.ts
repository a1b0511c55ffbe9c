import { describe, expect, it } from "vitest";
import { continues, GROUP_WITHIN_MS, type RunMessage, runPlaces } from "./message-runs";

const base = Date.parse("2026-03-04T12:00:00Z");
const at = (senderId: string, minutes: number, action?: object): RunMessage => ({
  senderId,
  createdAt: new Date(base + minutes * 60_000).toISOString(),
  ...(action && { action }),
});
/** Each place as `c` (continued) or `-`, then `L` (last of its run) or `-`. */
const shape = (messages: RunMessage[]) =>
  runPlaces(messages).map((place) => `${place.continued ? "c" : "-"}${place.last ? "L" : "-"}`);

describe("runPlaces", () => {
  it("groups a sender's consecutive messages; only the last of each run is marked last", () => {
    expect(shape([at("a", 0), at("a", 1), at("a", 2), at("p", 3), at("p", 3), at("a", 4)])).toEqual(
      ["--", "c-", "cL", "--", "cL", "-L"],
    );
  });

  it("a single message is its own run, first and last", () => {
    expect(shape([at("a", 0)])).toEqual(["-L"]);
    expect(shape([])).toEqual([]);
  });

  it("a gap of the grouping window or more starts a new run", () => {
    const gap = GROUP_WITHIN_MS / 60_000;
    expect(shape([at("a", 0), at("a", gap - 0.01), at("a", 2 * gap)])).toEqual(["--", "cL", "-L"]);
  });

  it("a card breaks a run on both sides", () => {
    expect(shape([at("a", 0), at("a", 1, { id: "act" }), at("a", 2)])).toEqual(["-L", "-L", "-L"]);
  });

  it("a new day starts a new run, however close the times", () => {
    const late = { senderId: "a", createdAt: "2026-03-04T23:59:30" };
    const early = { senderId: "a", createdAt: "2026-03-05T00:00:30" };
    expect(continues(late, early)).toBe(false);
    expect(continues(undefined, early)).toBe(false);
  });
});
