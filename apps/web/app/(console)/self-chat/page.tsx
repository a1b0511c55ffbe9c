import ui from "~/components/ui/layout.module.css";
import { HydrateClient, trpc } from "~/trpc/server";
import { DeveloperKeysCard } from "./_components/developer-keys-card";
import { SelfMessages } from "./_components/self-messages";

export default function SelfChatPage() {
  return (
    <>
      <title>Self chat · Switchboard</title>
      <div className={ui.pageHead}>
        <div>
          <h1>Self chat</h1>
          <p className={ui.muted}>
            Notes to yourself, posted by your own scripts through the Developer API. They address
            nobody and send no notification.
          </p>
        </div>
      </div>
      <HydrateClient
        queries={[trpc.selfChat.list.queryOptions(), trpc.developerKeys.list.queryOptions()]}
      >
        <SelfMessages />
        <DeveloperKeysCard />
      </HydrateClient>
    </>
  );
}
