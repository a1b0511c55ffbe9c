import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";

/** A file of the repository's docs/, found above the server's working directory. */
function docsFile(name: string): string | null {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "docs", name);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

/** A guide under /docs, as the Markdown it is written in. */
export async function markdownResponse(
  name: string,
  fill: (text: string) => string = (text) => text,
): Promise<Response> {
  const file = docsFile(name);
  if (!file) return new Response("Not found", { status: 404 });
  return new Response(fill(await readFile(file, "utf8")), {
    headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-cache" },
  });
}
