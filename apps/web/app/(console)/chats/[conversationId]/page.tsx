import { firstPageOnly, getQueryClient, HydrateClient, prefetch, trpc } from "~/trpc/server";
import { ChatView } from "../_components/chat-view";

/** One chat, rendered with its newest messages and the agent's facts read on the server. */
export default async function ChatPage({
  params,
}: {
  params: Promise<{ conversationId: string }>;
}) {
  const { conversationId } = await params;
  const chat = trpc.chats.page.infiniteQueryOptions({ chat: conversationId }, firstPageOnly);
  await prefetch(chat);
  // The header asks about the agent by the chat's id, which the page names (the URL may not).
  const id = getQueryClient().getQueryData(chat.queryKey)?.pages[0]?.conversation.id;
  const about = id ? [trpc.chats.agent.queryOptions({ chat: id })] : [];
  return (
    <HydrateClient queries={[chat, ...about]}>
      <ChatView conversationId={conversationId} />
    </HydrateClient>
  );
}
