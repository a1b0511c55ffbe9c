/** The documents under /docs, as the docs header links them. */
export const documents = {
  agent: { label: "Agent API", href: "/docs", spec: "/api/agent/v1/openapi.json" },
  dev: { label: "Developer API", href: "/docs?api=dev", spec: "/api/v1/openapi.json" },
  quickstart: { label: "quickstart", href: "/docs/quickstart", testId: "docs-quickstart" },
  mcp: { label: "mcp", href: "/docs/mcp", testId: "docs-mcp" },
} as const;

export interface DocsLink {
  href: string;
  label: string;
  testId?: string;
}

/** The guides: Markdown files of the repository's docs/, each a page under /docs. */
export const guides = {
  quickstart: { file: "quickstart.md", title: "Quickstart" },
  mcp: { file: "mcp.md", title: "MCP" },
} as const;
export type Guide = keyof typeof guides;
