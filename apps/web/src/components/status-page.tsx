import Link from "next/link";
import type { ReactNode } from "react";

/**
 * A full-page state (not found, something broke) in the console's own look, with the ways back
 * a person needs: the console's main sections, or signing in.
 */
export function StatusPage({
  code,
  title,
  children,
  actions,
  testId,
}: {
  code: string;
  title: string;
  children: ReactNode;
  actions?: ReactNode;
  testId: string;
}) {
  return (
    <section className="status-page card" aria-labelledby="status-heading" data-testid={testId}>
      <p className="status-code" aria-hidden="true">
        {code}
      </p>
      <h1 id="status-heading">{title}</h1>
      <div className="muted">{children}</div>
      <nav aria-label="Where to go" className="row status-links">
        {actions}
        <Link href="/chats" className="button-link">
          Go to your chats
        </Link>
        <Link href="/agents" className="button-link secondary">
          Your agents
        </Link>
      </nav>
    </section>
  );
}

/** The branded page for an address that leads nowhere. */
export function NotFoundView() {
  return (
    <StatusPage code="404" title="We can't find that page" testId="not-found">
      <p>
        The link may be out of date, or the page was removed. Check the address, or go on from here.
      </p>
    </StatusPage>
  );
}
