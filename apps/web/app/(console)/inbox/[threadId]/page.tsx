"use client";

import { useParams } from "next/navigation";
import { ThreadView } from "../_components/thread-view";

export default function EmailThreadPage() {
  const { threadId } = useParams<{ threadId: string }>();
  return <ThreadView threadId={threadId} />;
}
