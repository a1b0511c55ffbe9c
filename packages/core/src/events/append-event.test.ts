import { eventExamples } from "@switchboard/contract";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDeps } from "../testing";
import { appendEvents, type NewEvent } from "./append-event";
import { readEvents } from "./read-events";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const append = (events: NewEvent[]) =>
  t.deps.db.transaction((tx) => appendEvents(tx, t.clock.now(), events));

it("refuses an event that does not match the event registry, and writes none of its batch", async () => {
  const agentId = "agt_registry";
  const good: NewEvent = {
    agentId,
    type: "contact.added",
    payload: eventExamples["contact.added"],
  };
  const unknownType = { agentId, type: "test.event", payload: {} } as unknown as NewEvent;
  const badPayload = {
    agentId,
    type: "message.received",
    payload: { ...eventExamples["message.received"], message: null },
  } as unknown as NewEvent;
  await expect(append([good, unknownType])).rejects.toThrow(/unknown event type "test.event"/);
  await expect(append([badPayload])).rejects.toThrow(/message\.received/);
  expect((await readEvents(t.deps, agentId, 0, 10)).events).toEqual([]);
  const [written] = await append([good]);
  // An append answers where the event is, never its payload (readers see it through its grants).
  expect(written).toEqual({
    id: expect.stringMatching(/^evt_/),
    seq: expect.any(Number),
    type: "contact.added",
    agentId,
    ts: t.clock.now().toISOString(),
  });
  expect((await readEvents(t.deps, agentId, 0, 10)).events).toMatchObject([
    { id: written?.id, payload: eventExamples["contact.added"] },
  ]);
});
