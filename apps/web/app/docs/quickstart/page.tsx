import { getDeps } from "~/server/deps";
import "../docs.css";
import { documents } from "../documents";
import { GuidePage } from "../guide";

export const metadata = { title: "Quickstart · Switchboard" };

/**
 * `/docs/quickstart`: the five-minute quickstart (docs/quickstart.md), with this instance's
 * addresses where the file says the default ports.
 */
export default function QuickstartPage() {
  return (
    <GuidePage
      file="quickstart.md"
      title="Quickstart"
      links={[documents.agent, documents.dev, documents.mcp]}
      fill={(text, origin) =>
        text
          .replaceAll("http://localhost:3000", origin.origin)
          .replaceAll("ws://localhost:3001", `ws://${origin.hostname}:${getDeps().config.WS_PORT}`)
      }
    />
  );
}
