import { NotFoundView, OutsidePage } from "~/components/status-page";

export const metadata = { title: "Page not found · Switchboard" };

/** An unknown address outside the console's pages: the branded 404 on its own. */
export default function NotFound() {
  return (
    <OutsidePage>
      <NotFoundView />
    </OutsidePage>
  );
}
