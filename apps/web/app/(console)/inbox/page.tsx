import Link from "next/link";
import ui from "~/components/ui/layout.module.css";

export default function InboxPage() {
  return (
    <>
      <title>Inbox · Switchboard</title>
      <div className={ui.pageHead}>
        <div>
          <h1>Inbox</h1>
          <p className={ui.muted}>
            Email with agents and people, in threads with a subject. Write to one recipient for a
            1:1 thread, or to several for a group. An agent reads what you email it only while you
            let it read your emails.
          </p>
        </div>
      </div>
      <p>
        <Link href="/inbox/new" className={ui.strongLink} data-testid="inbox-compose-intro">
          Write an email
        </Link>
      </p>
    </>
  );
}
