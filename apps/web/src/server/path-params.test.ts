import { describe, expect, it } from "vitest";
import { GET as docsAsset } from "../../app/docs/assets/[file]/route";
import { isMintedId, ownEntry } from "./path-params";

describe("isMintedId", () => {
  it("accepts what newId mints, refuses anything else before any query", () => {
    expect(isMintedId("msg_3k9x0abc", "msg")).toBe(true);
    for (const bad of [
      "\u0000",
      "msg_\u0000",
      "msg_",
      "cnv_abc",
      "msg_ABC",
      "msg_../x",
      `msg_${"a".repeat(70)}`,
    ])
      expect(isMintedId(bad, "msg")).toBe(false);
  });
});

describe("ownEntry", () => {
  it("never answers what a table inherits", () => {
    const table = { "a.js": 1 };
    expect(ownEntry(table, "a.js")).toBe(1);
    for (const name of ["constructor", "__proto__", "toString", "hasOwnProperty"])
      expect(ownEntry(table, name)).toBeUndefined();
  });
});

describe("/docs/assets/[file]", () => {
  it("answers 404 for names Object has (constructor, __proto__, toString)", async () => {
    for (const file of ["constructor", "__proto__", "toString", "valueOf", "nope.js"]) {
      const response = await docsAsset(new Request(`http://x/docs/assets/${file}`), {
        params: Promise.resolve({ file }),
      });
      expect(response.status).toBe(404);
    }
  });
});
