import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { ownEntry } from "~/server/path-params";

/** The renderer's files, served from this origin (no CDN). */
const files: Record<string, string> = {
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui.css": "text/css; charset=utf-8",
};

/**
 * swagger-ui-dist's folder: the nearest node_modules above the server's working directory that
 * has it (the bundler cannot resolve a package's files at run time, so it is looked up on disk).
 */
function dist(): string {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules", "swagger-ui-dist");
    if (existsSync(path.join(candidate, "package.json"))) return candidate;
    if (path.dirname(dir) === dir) throw new Error("swagger-ui-dist is not installed");
  }
}

export async function GET(
  _request: Request,
  { params }: { params: Promise<{ file: string }> },
): Promise<Response> {
  const { file } = await params;
  const type = ownEntry(files, file);
  if (!type) return new Response("Not found", { status: 404 });
  // The name is one of `files` (checked above): nothing for the bundler to trace.
  return new Response(await readFile(path.join(/*turbopackIgnore: true*/ dist(), file)), {
    headers: { "Content-Type": type, "Cache-Control": "public, max-age=86400" },
  });
}
