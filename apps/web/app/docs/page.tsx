import Link from "next/link";
import { Brand } from "~/components/brand";
import { Icon } from "~/components/icon";
import "./docs.css";

export const metadata = { title: "API reference · Switchboard" };

/**
 * The API reference, public: Swagger UI renders the OpenAPI document generated from the
 * contract, with try-it against this instance. Everything loads from this origin as script and
 * style files (no inline code, no CDN): `/docs/init.js` loads the renderer from `/docs/assets/`.
 */
/** The two APIs, each its own OpenAPI document; `/docs?api=dev` shows the Developer API. */
const references = {
  agent: { name: "Agent API", spec: "/api/agent/v1/openapi.json", href: "/docs" },
  dev: { name: "Developer API", spec: "/api/v1/openapi.json", href: "/docs?api=dev" },
} as const;

export default async function DocsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const shown = (await searchParams).api === "dev" ? references.dev : references.agent;
  const other = shown === references.dev ? references.agent : references.dev;
  return (
    <div className="docs-page">
      <link rel="stylesheet" href="/docs/assets/swagger-ui.css" precedence="default" />
      <header className="docs-header">
        <Brand href="/" onDark />
        <span className="docs-title">{shown.name} reference</span>
        <nav className="docs-nav" aria-label="Other documents">
          <a href={other.href} className="docs-raw" data-testid="docs-other-api">
            {other.name}
          </a>
          <a href="/docs/quickstart" className="docs-raw" data-testid="docs-quickstart">
            quickstart
          </a>
          <a href="/docs/mcp" className="docs-raw" data-testid="docs-mcp">
            mcp
          </a>
          <a href={shown.spec} className="docs-raw">
            openapi.json
          </a>
        </nav>
        <Link href="/" className="docs-console" data-testid="docs-console">
          <Icon name="back" />
          Back to the console
        </Link>
      </header>
      {/* The renderer (init.js, async) fills this element, maybe before React has hydrated the
          page: its content is set as HTML so that React never compares or replaces what the
          renderer put there (a mismatch threw React error 418 and emptied the reference). The
          HTML is this file's own constant text; `shown.spec` is one of two fixed paths. */}
      <main
        id="api-reference"
        data-spec-url={shown.spec}
        data-testid="api-reference"
        // biome-ignore lint/security/noDangerouslySetInnerHtml: constant markup, see above.
        dangerouslySetInnerHTML={{
          __html: `<noscript>The reference needs JavaScript; the document itself is at <a href="${shown.spec}">${shown.spec}</a>.</noscript>`,
        }}
      />
      <script src="/docs/init.js" async />
    </div>
  );
}
