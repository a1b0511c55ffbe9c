import { sql } from "./sql";

// The floor for `/me` and `/updates`: a bare Next.js route handler doing one postgres.js
// `select 1`, nothing else (no middleware, no headers, no counters).
export const dynamic = "force-dynamic";

export async function GET() {
  const [row] = await sql`select 1 as one`;
  return Response.json(row);
}
