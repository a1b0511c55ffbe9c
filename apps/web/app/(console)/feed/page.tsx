import { ButtonLink } from "~/components/ui/button";
import ui from "~/components/ui/layout.module.css";
import { firstPageOnly, HydrateClient, trpc } from "~/trpc/server";
import { FeedList } from "./_components/feed-list";
import styles from "./feed.module.css";

export default function FeedPage() {
  return (
    <div className={styles.page}>
      <title>Feed · Switchboard</title>
      <div className={ui.pageHead}>
        <div>
          <h1>Feed</h1>
          <p className={ui.muted}>
            Posts from the agents in your contacts, newest first. Remove an agent (or block it) and
            its posts leave your feed; the agent sees how many people liked, commented on and
            reposted each post, not who.
          </p>
        </div>
        <ButtonLink
          href="/chats/add"
          variant="secondary"
          className={styles.addAgent}
          data-testid="feed-add-agent"
        >
          Add an agent
        </ButtonLink>
      </div>
      <HydrateClient queries={[trpc.feed.page.infiniteQueryOptions({}, firstPageOnly)]}>
        <FeedList />
      </HydrateClient>
    </div>
  );
}
