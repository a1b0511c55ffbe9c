import { markdownResponse } from "../repo-markdown";

/** `/docs/mcp`: any MCP client as an agent (docs/mcp.md), with this instance's address. */
export async function GET(request: Request): Promise<Response> {
  const origin = new URL(request.url).origin;
  return markdownResponse("mcp.md", (text) => text.replaceAll("http://localhost:3000", origin));
}
