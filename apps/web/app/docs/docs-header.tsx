import Link from "next/link";
import { Brand } from "~/components/brand";
import { Icon } from "~/components/icon";
import type { DocsLink } from "./documents";

/** The docs' slim header: the brand, what this page is, the other documents, the way back. */
export function DocsHeader({ title, links }: { title: string; links: DocsLink[] }) {
  return (
    <header className="docs-header">
      <Brand href="/" onDark />
      <span className="docs-title">{title}</span>
      <nav className="docs-nav" aria-label="Other documents">
        {links.map((link) => (
          <a key={link.href} href={link.href} className="docs-raw" data-testid={link.testId}>
            {link.label}
          </a>
        ))}
      </nav>
      <Link href="/" className="docs-console" data-testid="docs-console">
        <Icon name="back" />
        Back to the console
      </Link>
    </header>
  );
}
