import { describe, expect, it } from "vitest";
import {
  countRereadAt,
  shownCount,
  titleWithCount,
  waitingLabel,
  waitingWords,
} from "./waiting-count";

describe("the count of cards waiting", () => {
  it("goes before the page's title, only when a card waits", () => {
    expect(titleWithCount("Chats · Switchboard", 3)).toBe("(3) Chats · Switchboard");
    expect(titleWithCount("Chats · Switchboard", 0)).toBe("Chats · Switchboard");
    expect(titleWithCount("Chats · Switchboard", 120)).toBe("(99+) Chats · Switchboard");
  });

  it("names the nav item with the count for a screen reader, exactly", () => {
    expect(waitingLabel(0)).toBe("Waiting for you");
    expect(waitingLabel(3)).toBe("Waiting for you, 3");
    expect(waitingLabel(120)).toBe("Waiting for you, 120");
    expect(shownCount(99)).toBe("99");
    expect(shownCount(100)).toBe("99+");
  });

  it("says how many wait in words", () => {
    expect(waitingWords(0)).toBe("No cards wait for you");
    expect(waitingWords(1)).toBe("1 card waits for you");
    expect(waitingWords(4)).toBe("4 cards wait for you");
  });

  it("is read again just after the first card expires, and never with none waiting", () => {
    expect(countRereadAt(null)).toBeNull();
    expect(countRereadAt("2026-11-29T03:00:00.000Z")).toBe(
      Date.parse("2026-11-29T03:00:00.000Z") + 250,
    );
  });
});
