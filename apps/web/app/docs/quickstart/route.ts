import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";

/** The repository's docs/quickstart.md, found above the server's working directory. */
function quickstart(): string | null {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "docs", "quickstart.md");
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

/** `/docs/quickstart`: the five-minute quickstart, as the Markdown it is written in. */
export async function GET(): Promise<Response> {
  const file = quickstart();
  if (!file) return new Response("Not found", { status: 404 });
  return new Response(await readFile(file), {
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-cache" },
  });
}
