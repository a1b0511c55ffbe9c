import { describe, expect, it } from "vitest";
import { logViewFrom, logViewQuery } from "./log-view";

const view = (query: string) => logViewFrom(new URLSearchParams(query));

describe("the delivery log's view in the URL", () => {
  it("reads filters and a page, and writes them back the same", () => {
    const shown = view("status=dead&type=message.received&event=evt_1&before=42");
    expect(shown).toEqual({
      status: "dead",
      eventType: "message.received",
      eventId: "evt_1",
      before: 42,
    });
    expect(logViewQuery(shown)).toEqual({
      status: "dead",
      type: "message.received",
      event: "evt_1",
      before: "42",
      after: null,
    });
    expect(view("after=0")).toEqual({ after: 0 });
  });

  it("leaves out what does not parse, so a hand-edited link still shows a log", () => {
    expect(view("status=lost&type=webhook.test&event=%20%20&before=-3&after=x")).toEqual({});
    expect(view("type=nonsense&before=1e3")).toEqual({});
    // One page only: a link with both cursors shows the older one.
    expect(view("before=9&after=3")).toEqual({ before: 9 });
  });

  it("drops every part a view leaves out", () => {
    expect(logViewQuery({})).toEqual({
      status: null,
      type: null,
      event: null,
      before: null,
      after: null,
    });
  });
});
