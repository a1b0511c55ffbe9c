import { getDeps } from "~/server/deps";
import { markdownResponse } from "../repo-markdown";

/**
 * `/docs/quickstart`: the five-minute quickstart (docs/quickstart.md), with this instance's
 * addresses where the file says the default ports.
 */
export async function GET(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const ws = `ws://${url.hostname}:${getDeps().config.WS_PORT}`;
  return markdownResponse("quickstart.md", (text) =>
    text.replaceAll("http://localhost:3000", url.origin).replaceAll("ws://localhost:3001", ws),
  );
}
