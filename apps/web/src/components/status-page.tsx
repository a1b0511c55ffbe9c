import type { ReactNode } from "react";
import { Brand } from "./brand";
import styles from "./status-page.module.css";
import { ButtonLink } from "./ui/button";
import { Card } from "./ui/card";
import ui from "./ui/layout.module.css";

/** A page of its own outside the console (no navigation): centred, under the brand. */
export function OutsidePage({ children }: { children: ReactNode }) {
  return (
    <main className={styles.shell} id="main">
      <Brand className={styles.brand} />
      {children}
    </main>
  );
}

/** Sign in and sign up: one card with the brand atop it. */
export function AuthPage({ children }: { children: ReactNode }) {
  return (
    <main className={styles.shell}>
      <Card as="div" className={styles.authCard}>
        <Brand className={styles.brand} />
        {children}
      </Card>
    </main>
  );
}

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
    <Card className={styles.page} aria-labelledby="status-heading" data-testid={testId}>
      <p className={styles.code} aria-hidden="true">
        {code}
      </p>
      <h1 id="status-heading">{title}</h1>
      <div className={ui.muted}>{children}</div>
      <nav aria-label="Where to go" className={`${ui.row} ${styles.links}`}>
        {actions}
        <ButtonLink href="/chats">Go to your chats</ButtonLink>
        <ButtonLink href="/agents" variant="secondary">
          Your agents
        </ButtonLink>
      </nav>
    </Card>
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
