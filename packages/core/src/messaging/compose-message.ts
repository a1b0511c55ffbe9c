import type { AgentMessage, MessageInput, MessageMedia } from "@switchboard/contract";
import { schema, type Tx } from "@switchboard/db";
import { and, eq } from "drizzle-orm";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { newId } from "../ids";
import { storeMediaInput } from "../objects/media-input";
import { objectPath, postgresObjectStore } from "../objects/object-store";
import { synthesizeSpeech } from "./synthesize-speech";

const { messages, conversations } = schema;
type MessageRow = typeof messages.$inferSelect;

export function toAgentMessage(row: MessageRow, senderNum?: string): AgentMessage {
  const media = (row.media ?? {}) as MessageMedia;
  return {
    id: row.id,
    conversationId: row.conversationId,
    senderId: row.senderId,
    ...(senderNum && { senderNum }),
    type: row.type,
    content: row.content,
    replyToId: row.replyToId,
    agentActionId: row.agentActionId,
    createdAt: row.createdAt.toISOString(),
    ...media,
    ...(row.type === "voice" && row.transcript !== null && { transcript: row.transcript }),
  };
}

/**
 * Stores one message of any type in a conversation, inside the caller's transaction: media
 * inputs are decoded, checked and stored, the reply target must be in the same conversation,
 * and the conversation's activity time moves. The same path serves agents and people.
 */
export async function insertMessage(
  tx: Tx,
  deps: CoreDeps,
  message: {
    conversationId: string;
    senderId: string;
    memberIds: string[];
    input: MessageInput;
    agentActionId?: string;
  },
): Promise<MessageRow> {
  const { input } = message;
  const now = deps.clock.now();
  if (input.replyToId) {
    const [target] = await tx
      .select({ id: messages.id })
      .from(messages)
      .where(
        and(eq(messages.id, input.replyToId), eq(messages.conversationId, message.conversationId)),
      );
    if (!target)
      throw new CoreError("validation_error", "replyToId names no message of this conversation", {
        issues: [{ path: "replyToId", message: "no such message in this conversation" }],
      });
  }
  const store = (kind: "audio" | "image" | "video" | "document", value: string, field: string) =>
    storeMediaInput(tx, postgresObjectStore, {
      kind,
      value,
      field,
      senderId: message.senderId,
      conversationMemberIds: message.memberIds,
      now,
    });

  let media: MessageMedia = {};
  let transcript: string | null = null;
  switch (input.type) {
    case "voice": {
      if (input.tts) {
        const wav = await synthesizeSpeech(
          deps.config.TTS_COMMAND,
          input.tts.text,
          input.tts.voice,
        );
        const stored = await postgresObjectStore.put(tx, {
          ownerId: message.senderId,
          mimeType: "audio/wav",
          bytes: wav,
          now,
        });
        media = { audio: { data: objectPath(stored.id), duration: wavSeconds(wav) } };
        transcript = input.tts.text;
        break;
      }
      const audio = await store("audio", input.audioData as string, "audioData");
      media = { audio: { data: audio.data, duration: input.audioDuration ?? null } };
      transcript = input.transcript ?? null;
      break;
    }
    case "image":
    case "sticker": {
      const image = await store("image", input.imageData as string, "imageData");
      media = {
        image: {
          data: image.data,
          width: input.mediaWidth ?? null,
          height: input.mediaHeight ?? null,
        },
      };
      break;
    }
    case "video": {
      const video = await store("video", input.videoData as string, "videoData");
      media = {
        video: {
          data: video.data,
          thumbnail: input.thumbnailData ?? null,
          width: input.mediaWidth ?? null,
          height: input.mediaHeight ?? null,
        },
      };
      break;
    }
    case "document": {
      const document = await store("document", input.documentData as string, "documentData");
      media = {
        document: {
          data: document.data,
          name: input.documentName ?? null,
          size: input.documentSize ?? null,
          mimeType: input.documentMimeType ?? document.mimeType,
        },
      };
      break;
    }
    case "location":
      media = {
        location: { latitude: input.latitude as string, longitude: input.longitude as string },
      };
      break;
    case "contact":
      media = {
        sharedContact: {
          id: input.sharedContactId ?? null,
          num: input.sharedContactNum as string,
          name: input.sharedContactName ?? null,
          avatar: input.sharedContactAvatar ?? null,
          type: input.sharedContactType ?? null,
        },
      };
      break;
    case "text":
      break;
  }
  const [row] = await tx
    .insert(messages)
    .values({
      id: newId("msg"),
      conversationId: message.conversationId,
      senderId: message.senderId,
      type: input.type,
      content: input.content ?? input.tts?.text ?? "",
      replyToId: input.replyToId ?? null,
      agentActionId: message.agentActionId ?? null,
      media,
      transcript,
      createdAt: now,
    })
    .returning();
  await tx
    .update(conversations)
    .set({ lastMessageAt: now })
    .where(eq(conversations.id, message.conversationId));
  return row as MessageRow;
}

/** Duration of a PCM WAV from its header, as the seconds string AgentMessage carries. */
function wavSeconds(wav: Buffer): string | null {
  const byteRate = wav.length >= 44 ? wav.readUInt32LE(28) : 0;
  return byteRate > 0 ? ((wav.length - 44) / byteRate).toFixed(1) : null;
}
