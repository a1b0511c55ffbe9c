import postgres from "postgres";

// The floor the benchmark compares the service with: a bare Next.js route handler doing one
// postgres.js `select 1`, nothing else (no middleware, no headers, no counters).
const sql = postgres(process.env.DATABASE_URL as string, { max: 10, onnotice: () => {} });

export const dynamic = "force-dynamic";

export async function GET() {
  const [row] = await sql`select 1 as one`;
  return Response.json(row);
}
