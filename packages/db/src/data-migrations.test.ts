import { readFileSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { expect, inject, it } from "vitest";
import { createTestDatabase, dropDatabase } from "./testing";

/** The statements of a hand-written migration, to run again over rows made for the test. */
function statements(file: string): string[] {
  const text = readFileSync(path.resolve(import.meta.dirname, "../../../drizzle", file), "utf8");
  return text.split("--> statement-breakpoint").map((part) => part.trim());
}

it("0012 leaves stored documents no active type", async () => {
  const server = inject("testDatabase");
  const database = await createTestDatabase(server);
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const now = new Date();
    await sql`insert into users (id, num, user_type, created_at, updated_at)
      values ('usr_m', '111-222-333', 'person', ${now}, ${now})`;
    const types = [
      "text/html",
      "image/svg+xml",
      "text/xml",
      "application/pdf",
      "image/png",
      "text/plain",
    ];
    for (const [i, mime] of types.entries())
      await sql`insert into objects (id, owner_id, mime_type, size, created_at)
        values (${`obj_${i}`}, 'usr_m', ${mime}, 1, ${now})`;
    await sql`insert into conversations (id, kind, member_key, created_at)
      values ('cnv_m', 'self', 'usr_m', ${now})`;
    for (const [i, mime] of types.entries())
      await sql`insert into messages (id, conversation_id, sender_id, type, content, media, created_at)
        values (${`msg_${i}`}, 'cnv_m', 'usr_m', 'document', '',
          ${sql.json({ document: { data: `/objects/obj_${i}`, name: "f", size: null, mimeType: mime } })}, ${now})`;
    for (const statement of statements("0012_document_safe_types.sql")) await sql.unsafe(statement);
    const safe = [
      "application/octet-stream",
      "application/octet-stream",
      "application/octet-stream",
      "application/pdf",
      "image/png",
      "text/plain",
    ];
    const objects = await sql`select mime_type from objects order by id`;
    expect(objects.map((o) => o.mime_type)).toEqual(safe);
    const messages =
      await sql`select media->'document'->>'mimeType' as t from messages order by id`;
    expect(messages.map((m) => m.t)).toEqual(safe);
  } finally {
    await sql.end();
    await dropDatabase(server.adminUrl, database.name);
  }
});

it("0009 gives events logged before read-time consent the person they are about", async () => {
  const server = inject("testDatabase");
  const database = await createTestDatabase(server);
  const sql = postgres(database.url, { max: 1, onnotice: () => {} });
  try {
    const rows: [string, Record<string, unknown>][] = [
      ["message.received", { from: { id: "usr_from" }, message: null }],
      ["message.transcript", { from: { id: "usr_from" } }],
      ["contact.added", { user: { id: "usr_user" }, scopes: [] }],
      ["task.due", { user: { id: "usr_user" }, task: {} }],
      ["test.event", {}],
    ];
    for (const [i, [type, payload]] of rows.entries())
      await sql`insert into events (id, agent_id, type, ts, payload)
        values (${`evt_${i}`}, 'agt_a', ${type}, now(), ${sql.json(payload as never)})`;
    for (const statement of statements("0009_event_person_backfill.sql"))
      await sql.unsafe(statement);
    const people = await sql`select person_id from events order by seq`;
    expect(people.map((p) => p.person_id)).toEqual([
      "usr_from",
      "usr_from",
      "usr_user",
      "usr_user",
      null,
    ]);
  } finally {
    await sql.end();
    await dropDatabase(server.adminUrl, database.name);
  }
});
