import type { AgentMessage } from "@switchboard/contract";

/** One line that stands for a message in a chat list. */
export function messagePreview(message: AgentMessage): string {
  const caption = message.content.trim();
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
