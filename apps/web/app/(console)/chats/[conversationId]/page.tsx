"use client";

import { useParams } from "next/navigation";
import { ChatView } from "../_components/chat-view";

export default function ChatPage() {
  const { conversationId } = useParams<{ conversationId: string }>();
  return <ChatView conversationId={conversationId} />;
}
