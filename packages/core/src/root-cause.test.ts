import { expect, it } from "vitest";
import { rootCause } from "./root-cause";

it("follows an error's causes to the last Error, and stops at one that is not an Error", () => {
  const bottom = Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" });
  const wrapped = new Error("Failed query: select 1", {
    cause: new Error("fetch failed", { cause: bottom }),
  });
  expect(rootCause(wrapped)).toBe(bottom);
  const stringCause = new Error("outer", { cause: "a string" });
  expect(rootCause(stringCause)).toBe(stringCause);
  expect(rootCause("thrown text")).toBe("thrown text");
});
