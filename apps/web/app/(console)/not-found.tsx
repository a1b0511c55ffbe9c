import { NotFoundView } from "~/components/status-page";

// Both: a 404 raised on the server carries only the metadata's title in its HTML, and once
// hydrated only the element's.
export const metadata = { title: "Page not found · Switchboard" };

/** A console page asked for something that is not there; the navigation stays. */
export default function ConsoleNotFound() {
  return (
    <>
      <title>Page not found · Switchboard</title>
      <NotFoundView />
    </>
  );
}
