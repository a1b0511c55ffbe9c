import Link from "next/link";
import "./docs.css";

export const metadata = { title: "API reference · Switchboard" };

/**
 * The API reference, public: Swagger UI renders the OpenAPI document generated from the
 * contract, with try-it against this instance. Everything loads from this origin as script and
 * style files (no inline code, no CDN): `/docs/init.js` loads the renderer from `/docs/assets/`.
 */
export default function DocsPage() {
  return (
    <div className="docs-page">
      <link rel="stylesheet" href="/docs/assets/swagger-ui.css" precedence="default" />
      <header className="docs-header">
        <Link href="/" className="docs-brand">
          <span className="brand-mark" aria-hidden="true" />
          Switchboard
        </Link>
        <span className="docs-title">API reference</span>
        <a href="/docs/quickstart" className="docs-raw" data-testid="docs-quickstart">
          quickstart
        </a>
        <a href="/docs/mcp" className="docs-raw" data-testid="docs-mcp">
          mcp
        </a>
        <a href="/api/agent/v1/openapi.json" className="docs-raw">
          openapi.json
        </a>
      </header>
      <main
        id="api-reference"
        data-spec-url="/api/agent/v1/openapi.json"
        data-testid="api-reference"
      >
        <noscript>
          The reference needs JavaScript; the document itself is at{" "}
          <a href="/api/agent/v1/openapi.json">/api/agent/v1/openapi.json</a>.
        </noscript>
      </main>
      <script src="/docs/init.js" async />
    </div>
  );
}
