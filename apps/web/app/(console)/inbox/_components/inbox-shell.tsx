import type { ReactNode } from "react";
import { SplitView } from "~/components/split-view";
import { ThreadList } from "./thread-list";

/** The inbox: the thread list beside the open thread (or the compose form). */
export function InboxShell({ children }: { children: ReactNode }) {
  return (
    <SplitView root="/inbox" list={<ThreadList />}>
      {children}
    </SplitView>
  );
}
