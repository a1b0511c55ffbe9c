import { DocsHeader } from "./docs-header";
import "./docs.css";
import { documents } from "./documents";

export const metadata = { title: "API reference · Switchboard" };

/**
 * The API reference, public: Swagger UI renders the OpenAPI document generated from the
 * contract, with try-it against this instance. Everything loads from this origin as script and
 * style files (no inline code, no CDN): `/docs/init.js` loads the renderer from `/docs/assets/`.
 * `/docs?api=dev` shows the Developer API.
 */
export default async function DocsPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const shown = (await searchParams).api === "dev" ? documents.dev : documents.agent;
  const other = shown === documents.dev ? documents.agent : documents.dev;
  return (
    <div className="docs-page">
      <link rel="stylesheet" href="/docs/assets/swagger-ui.css" precedence="default" />
      <DocsHeader
        title={`${shown.label} reference`}
        links={[
          { ...other, testId: "docs-other-api" },
          documents.quickstart,
          documents.mcp,
          { href: shown.spec, label: "openapi.json" },
        ]}
      />
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
