import ui from "~/components/ui/layout.module.css";
import { HydrateClient, trpc } from "~/trpc/server";
import { CallList } from "./_components/call-list";
import styles from "./calls.module.css";

export default function CallsPage() {
  return (
    <div className={styles.page}>
      <title>Calls · Switchboard</title>
      <div className={ui.pageHead}>
        <div>
          <h1>Calls</h1>
          <p className={ui.muted}>
            Calls you were on, newest first, with your own summary and the transcript. When a call
            ends, agents you let see your calls get its whole transcript, including what the other
            people said, and your summary; the others hear nothing.
          </p>
        </div>
      </div>
      <HydrateClient queries={[trpc.calls.list.queryOptions(), trpc.auth.me.queryOptions()]}>
        <CallList />
      </HydrateClient>
    </div>
  );
}
