import { sql } from "../sql";

// The floor for sends: the JSON body parsed and one durable INSERT of a message-shaped row (one
// auto-commit statement, so one WAL flush), its id answered. Table: floor.ts creates it.
export const dynamic = "force-dynamic";

export async function POST(request: Request) {
  const body = (await request.json()) as { to: string; type: string; content: string };
  const [row] = await sql`
    insert into floor_messages (conversation, sender, type, content)
    values (${body.to}, 'floor', ${body.type}, ${body.content})
    returning id`;
  return Response.json(row, { status: 201 });
}
