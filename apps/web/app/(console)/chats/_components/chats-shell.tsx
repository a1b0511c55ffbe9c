import type { ReactNode } from "react";
import { SplitView } from "~/components/split-view";

/** The chat list beside the open chat; on a phone /chats also offers adding an agent. */
export function ChatsShell({ list, children }: { list: ReactNode; children: ReactNode }) {
  return (
    <SplitView root="/chats" list={list} rootPageOnPhone>
      {children}
    </SplitView>
  );
}
