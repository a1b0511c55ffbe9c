"use client";

import { StatusPage } from "./status-page";
import { Button } from "./ui/button";
import ui from "./ui/layout.module.css";

/** What a page that crashed shows: it was us, try again, or go elsewhere. */
export function ErrorView({ reset, digest }: { reset: () => void; digest?: string }) {
  return (
    <StatusPage
      code="Error"
      title="Something went wrong on our side"
      testId="error-page"
      actions={
        <Button onClick={reset} data-testid="error-retry">
          Try again
        </Button>
      }
    >
      <p>
        This page could not be shown. Try again; if it keeps happening, go back to your chats and
        start from there.
      </p>
      {digest && <p className={ui.hint}>Reference: {digest}</p>}
    </StatusPage>
  );
}
