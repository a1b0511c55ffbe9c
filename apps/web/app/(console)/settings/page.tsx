import ui from "~/components/ui/layout.module.css";
import { getDeps } from "~/server/deps";
import { HydrateClient, trpc } from "~/trpc/server";
import { NotificationSettingsCard } from "./_components/notification-settings";

export default function SettingsPage() {
  const vapidPublicKey = getDeps().config.VAPID_PUBLIC_KEY ?? null;
  return (
    <>
      <title>Settings · Switchboard</title>
      <div className={ui.pageHead}>
        <div>
          <h1>Settings</h1>
          <p className={ui.muted}>
            Cards and messages on your devices, even when no console tab is open.
          </p>
        </div>
      </div>
      <HydrateClient
        queries={[trpc.settings.notifications.queryOptions(), trpc.settings.devices.queryOptions()]}
      >
        <NotificationSettingsCard vapidPublicKey={vapidPublicKey} />
      </HydrateClient>
    </>
  );
}
