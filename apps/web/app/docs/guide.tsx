import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { headers } from "next/headers";
import { notFound } from "next/navigation";
import ReactMarkdown, { type Components } from "react-markdown";
import { getDeps } from "~/server/deps";
import { DocsHeader } from "./docs-header";
import "./docs.css";
import { documents, type Guide, guides } from "./documents";

/** A file of the repository's docs/, found above the server's working directory. */
function docsFile(name: string): string | null {
  for (let dir = process.cwd(); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "docs", name);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

/** This instance's origin as the reader reached it (the request guard settles it, decision 0034). */
async function readerOrigin(): Promise<URL> {
  const sent = await headers();
  const host = sent.get("x-forwarded-host") ?? sent.get("host") ?? "localhost";
  return new URL(`${sent.get("x-forwarded-proto") ?? "http"}://${host}`);
}

const guideNames = Object.keys(guides) as Guide[];

/** The guides' links to each other, by file name. */
const guidePages: Record<string, string> = Object.fromEntries(
  guideNames.map((guide) => [guides[guide].file, documents[guide].href]),
);

/** The guide's text with this instance's addresses where it says the default ports. */
function withOurAddresses(text: string, origin: URL): string {
  return text
    .replaceAll("http://localhost:3000", origin.origin)
    .replaceAll("ws://localhost:3001", `ws://${origin.hostname}:${getDeps().config.WS_PORT}`);
}

/**
 * Links in a guide: web addresses open as they are; a link to another guide opens its page here;
 * a link to another file of the repository (an example, a package's README) is that file in a
 * clone, not something this server serves, so its words stay and the link goes.
 */
const components: Components = {
  a: ({ href = "", children }) => {
    if (/^https?:\/\//i.test(href))
      return (
        <a href={href} rel="noopener noreferrer">
          {children}
        </a>
      );
    const [file = "", fragment] = href.split("#");
    const page = guidePages[file];
    return page ? <a href={fragment ? `${page}#${fragment}` : page}>{children}</a> : children;
  },
  // A long command scrolls inside its block; the block takes focus, so a keyboard scrolls it.
  // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable.
  pre: ({ node: _node, ...props }) => <pre tabIndex={0} {...props} />,
};

/**
 * A guide of the repository's docs/ as a page under the docs header, linking the references and
 * the other guides: Markdown rendered on the server (raw HTML in it stays text), with this
 * instance's addresses.
 */
export async function GuidePage({ guide }: { guide: Guide }) {
  const { file, title } = guides[guide];
  const found = docsFile(file);
  if (!found) notFound();
  const text = withOurAddresses(await readFile(found, "utf8"), await readerOrigin());
  const others = guideNames.filter((other) => other !== guide).map((other) => documents[other]);
  return (
    <div className="docs-page">
      <DocsHeader title={title} links={[documents.agent, documents.dev, ...others]} />
      <main className="docs-guide" data-testid="docs-guide">
        <ReactMarkdown components={components}>{text}</ReactMarkdown>
      </main>
    </div>
  );
}
