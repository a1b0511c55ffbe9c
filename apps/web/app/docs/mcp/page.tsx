import "../docs.css";
import { documents } from "../documents";
import { GuidePage } from "../guide";

export const metadata = { title: "MCP · Switchboard" };

/** `/docs/mcp`: any MCP client as an agent (docs/mcp.md), with this instance's address. */
export default function McpPage() {
  return (
    <GuidePage
      file="mcp.md"
      title="MCP"
      links={[documents.agent, documents.dev, documents.quickstart]}
      fill={(text, origin) => text.replaceAll("http://localhost:3000", origin.origin)}
    />
  );
}
