import type { AgentMessage } from "@switchboard/contract";
import { markdownAsText } from "~/components/markdown-text";

/**
 * One line that stands for a message in a chat list, in plain words: an agent's text is markdown
 * (shown rendered in the chat), so its markers are left out here; a person's text is as written.
 */
export function messagePreview(message: AgentMessage, fromAgent: boolean): string {
  const caption = fromAgent ? markdownAsText(message.content) : message.content.trim();
  switch (message.type) {
    case "text":
      return caption;
    case "voice":
      return caption ? `Voice note: ${caption}` : "Voice note";
    case "location":
      return "Location";
    case "contact":
      return `Contact: ${message.sharedContact?.name ?? message.sharedContact?.num ?? ""}`;
    case "document":
      return `Document: ${message.document?.name ?? caption}`;
    default:
      return caption ? `${capitalized(message.type)}: ${caption}` : capitalized(message.type);
  }
}

const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
