import { Button } from "~/components/ui/button";

/** Loads the page before the oldest item shown (a paged list read newest first). */
export interface OlderPage {
  load: () => void;
  loading: boolean;
}

/** The "Show older …" row above a paged list's oldest item: a chat's messages, a thread's emails. */
export function ShowOlderRow({
  older,
  what,
  className,
  testId,
}: {
  older: OlderPage;
  /** What the list holds, in the plural: "messages", "emails". */
  what: string;
  className?: string;
  testId: string;
}) {
  return (
    <li className={className}>
      <Button
        variant="secondary"
        small
        disabled={older.loading}
        onClick={older.load}
        data-testid={testId}
      >
        {older.loading ? `Loading older ${what}…` : `Show older ${what}`}
      </Button>
    </li>
  );
}
