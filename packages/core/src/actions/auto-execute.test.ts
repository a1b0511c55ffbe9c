import type { AgentScope } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, expect, it } from "vitest";
import { addContact, removeContact } from "../contacts/contacts";
import { CoreError } from "../errors";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { createTestDeps } from "../testing";
import { setAutoExecute } from "./list-actions";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const WRITES: AgentScope[] = ["tasks:write", "reminders:write", "events:write", "notes:write"];

async function pair(requested: AgentScope[], granted: AgentScope[]) {
  const owner = await createUser(t.deps, {});
  const person = await createUser(t.deps, {});
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Skilled",
    requestedScopes: requested,
  });
  await addContact(t.deps, person.id, agent.id, granted);
  const skills = async () =>
    (
      await t.deps.db
        .select({ skills: schema.agentContacts.autoExecuteSkills })
        .from(schema.agentContacts)
        .where(eq(schema.agentContacts.userId, person.id))
    )[0]?.skills;
  return { person, agent, skills };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: unknown) => {
      if (!(error instanceof CoreError)) throw error;
      return { code: error.code, scope: error.details.scope };
    },
  );

it("refuses skills that are not create skills, or whose scope the agent does not request or the person does not grant", async () => {
  const { person, agent, skills } = await pair(["tasks:write", "notes:write"], ["tasks:write"]);
  const set = (skill: string, enabled = true) =>
    refusal(setAutoExecute(t.deps, person.id, agent.id, skill, enabled));
  expect(await set("delete_task")).toEqual({ code: "validation_error", scope: undefined });
  expect(await set("create_event")).toEqual({ code: "scope_not_granted", scope: "events:write" });
  expect(await set("create_note")).toEqual({ code: "scope_not_granted", scope: "notes:write" });
  expect(await set("create_task")).toBeNull();
  expect(await skills()).toEqual(["create_task"]);
  // Turning one off needs no grant.
  expect(await set("create_task", false)).toBeNull();
  expect(await skills()).toEqual([]);
  await removeContact(t.deps, person.id, agent.id);
  expect(await set("create_task")).toEqual({ code: "not_found", scope: undefined });
});

it("is atomic: changes made at once all hold", async () => {
  const { person, agent, skills } = await pair(WRITES, WRITES);
  const all = ["create_task", "create_reminder", "create_event", "create_note"];
  for (let round = 0; round < 3; round++) {
    await Promise.all(all.map((skill) => setAutoExecute(t.deps, person.id, agent.id, skill, true)));
    expect([...((await skills()) ?? [])].sort()).toEqual([...all].sort());
    await Promise.all(
      all.map((skill) => setAutoExecute(t.deps, person.id, agent.id, skill, false)),
    );
    expect(await skills()).toEqual([]);
  }
});
