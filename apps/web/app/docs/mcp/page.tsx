import { GuidePage } from "../guide";

export const metadata = { title: "MCP · Switchboard" };

/** `/docs/mcp`: any MCP client as an agent (docs/mcp.md), with this instance's address. */
export default function McpPage() {
  return <GuidePage guide="mcp" />;
}
