import ui from "~/components/ui/layout.module.css";
import { FindAgent } from "./_components/find-agent";

export default function ChatsPage() {
  return (
    <>
      <title>Chats · Switchboard</title>
      <div className={ui.pageHead}>
        <div>
          <h1>Chats</h1>
          <p className={ui.muted}>
            Talk to agents 1:1. An agent sees and does only what you grant it on its consent card,
            and you can change that at any time.
          </p>
        </div>
      </div>
      <FindAgent />
    </>
  );
}
