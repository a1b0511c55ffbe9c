import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { rootCause } from "@switchboard/core/root-cause";
import { readInstance } from "../instance";

/**
 * `switchboard mcp --token T [--url BASE]`: MCP over stdio for clients that only launch local
 * processes, forwarded to the service's `/api/agent/v1/mcp`. Stdout carries MCP and nothing
 * else; every problem is one line on stderr.
 */

export const mcpUsage = "mcp --token T [--url BASE]   the Agent API as MCP tools over stdio";

/** Longer than the updates tool's longest wait (25 s), with room for the call around it. */
const CALL_TIMEOUT_MS = 60_000;

const say = (line: string) => process.stderr.write(`switchboard mcp: ${line}\n`);

/** `--url`, else `SWITCHBOARD_URL`, else the running `npm start`, else the default port. */
function baseUrl(flag: string | undefined): string {
  const url =
    flag ??
    process.env.SWITCHBOARD_URL ??
    `${readInstance()?.webUrl ?? "http://localhost:3000"}/api`;
  return url.replace(/\/+$/, "");
}

function why(error: unknown): string {
  const root = rootCause(error);
  const message = root instanceof Error ? root.message || root.name : String(root);
  if (/fetch failed|ECONNREFUSED/.test(message)) return "the service is not reachable";
  return message;
}

export async function runMcp(argv: string[]): Promise<number> {
  let token: string;
  let url: string;
  try {
    const { values } = parseArgs({
      args: argv,
      options: { token: { type: "string" }, url: { type: "string" } },
      strict: true,
    });
    if (!values.token) throw new Error("Missing --token");
    token = values.token.replace(/^agent:/, "");
    url = baseUrl(values.url);
    new URL(url);
  } catch (error) {
    say(`${(error as Error).message}\nusage: switchboard ${mcpUsage}`);
    return 1;
  }

  const endpoint = new URL(`${url}/agent/v1/mcp`);
  const upstream = new Client({ name: "switchboard-mcp-bridge", version: "0.2.0" });
  try {
    await upstream.connect(
      new StreamableHTTPClientTransport(endpoint, {
        requestInit: { headers: { Authorization: `Bearer agent:${token}` } },
      }),
    );
  } catch (error) {
    const message = why(error);
    say(
      /401|unauthorized/i.test(message)
        ? `the token was refused by ${endpoint.origin} (401): mint a new one in the console`
        : `cannot reach ${endpoint.href}: ${message}`,
    );
    return 1;
  }

  const server = new Server(
    { name: "switchboard", version: "0.2.0" },
    { capabilities: { tools: {} }, instructions: upstream.getInstructions() },
  );
  server.setRequestHandler(ListToolsRequestSchema, (request) =>
    upstream.listTools(request.params, { timeout: CALL_TIMEOUT_MS }),
  );
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    try {
      return await upstream.callTool(request.params, undefined, {
        signal: extra.signal,
        timeout: CALL_TIMEOUT_MS,
      });
    } catch (error) {
      say(`${request.params.name}: ${why(error)}`);
      throw error;
    }
  });
  const stdio = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
    process.stdin.once("end", resolve);
  });
  await server.connect(stdio);
  await closed;
  await upstream.close().catch(() => {});
  return 0;
}
