import { NotFoundView } from "~/components/status-page";

export const metadata = { title: "Page not found · Switchboard" };

/** An unknown address outside the console's pages: the branded 404 on its own. */
export default function NotFound() {
  return (
    <main className="status-shell" id="main">
      <div className="brand status-brand">
        <span className="brand-mark" aria-hidden="true" />
        Switchboard
      </div>
      <NotFoundView />
    </main>
  );
}
