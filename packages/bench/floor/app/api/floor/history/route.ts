import { sql } from "../sql";

// The floor for history: one conversation's newest 50 message-shaped rows (id, conversation,
// sender, type, ~80 characters of content, timestamps) read by index and answered as JSON.
export const dynamic = "force-dynamic";

export async function GET() {
  const rows = await sql`
    select id, conversation, sender, type, content, created_at, updated_at
    from floor_messages where conversation = 'history' order by id desc limit 50`;
  return Response.json({ messages: rows });
}
