import { NotFoundView } from "~/components/status-page";

/** A console page asked for something that is not there; the navigation stays. */
export default function ConsoleNotFound() {
  return (
    <>
      <title>Page not found · Switchboard</title>
      <NotFoundView />
    </>
  );
}
