import { describe, expect, it } from "vitest";
import { describeError, Ledger } from "./ledger";

/** A ledger whose clock the test sets. */
function ledgerAt(): { ledger: Ledger; at: (ms: number) => void } {
  const ledger = new Ledger();
  let clock = 0;
  ledger.now = () => clock;
  return { ledger, at: (ms) => (clock = ms) };
}

describe("Ledger", () => {
  it("tolerates a lost connection from a call that was in flight during a fault, however late it failed", () => {
    const { ledger, at } = ledgerAt();
    at(10_000);
    ledger.endFault(ledger.beginFault("postgres"), 1_000); // grace ends at 16 000
    at(18_500);
    ledger.record("person send (core)", "connection", "waited out the restart", 9_000);
    expect(ledger.tolerated).toHaveLength(1);
    expect(ledger.problems).toEqual([]);
  });

  it("counts a lost connection from a call begun after the grace, and any 500, as problems", () => {
    const { ledger, at } = ledgerAt();
    at(10_000);
    ledger.endFault(ledger.beginFault("postgres"), 1_000);
    at(18_500);
    ledger.record("person send (core)", "connection", "after the fault", 17_000);
    ledger.record("POST /messages", 500, "during the fault", 10_500);
    ledger.record("GET /me", 503); // no start given: judged by when it ended
    expect(ledger.problems.map((p) => p.outcome)).toEqual(["connection", 500, 503]);
    expect(ledger.tolerated).toEqual([]);
  });

  it("tolerates 503s while a fault has not healed yet", () => {
    const { ledger, at } = ledgerAt();
    at(20_000);
    ledger.beginFault("kill -9 web-1");
    at(40_000);
    ledger.record("GET /me", 503, "", 39_000);
    expect(ledger.tolerated).toHaveLength(1);
  });
});

describe("describeError", () => {
  it("names a wrapped error's causes and their codes, the first line of each", () => {
    const cause = Object.assign(new Error("the database system is shutting down"), {
      code: "57P03",
    });
    const wrapped = new Error("Failed query: select 1\nparams: ", { cause });
    expect(describeError(wrapped)).toBe(
      "Failed query: select 1 <- the database system is shutting down [57P03]",
    );
  });
});
