"use client";

import type { PersonConversation } from "@switchboard/contract";
import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useRef, useState } from "react";
import { shownError } from "~/components/errors";
import { FormError } from "~/components/form-error";
import { useTRPC } from "~/trpc/client";

/** Typing is announced at most this often while the person keeps typing. */
const TYPING_EVERY_MS = 3000;

/**
 * Writing to the agent: text (Enter sends, Shift+Enter breaks the line) or a voice note from a
 * file. The agent sees the person typing while they type.
 */
export function Composer({ conversation }: { conversation: PersonConversation }) {
  const trpc = useTRPC();
  const [text, setText] = useState("");
  const lastTyping = useRef(0);
  const send = useMutation(trpc.chats.send.mutationOptions());
  const typing = useMutation(trpc.chats.typing.mutationOptions());
  const error = shownError(send.error);
  const chat = conversation.id;

  if (conversation.blocked)
    return <p className="hint">You blocked this agent. Unblock it in Settings to write to it.</p>;
  if (!conversation.isContact) return <NotAContact num={conversation.agent.num} />;

  const sendText = () => {
    const content = text.trim();
    if (!content || send.isPending) return;
    send.mutate(
      { chat, message: { type: "text", content } },
      {
        onSuccess: () => {
          setText("");
          lastTyping.current = 0;
        },
      },
    );
  };
  const sendVoice = (file: File) => {
    const reader = new FileReader();
    reader.onload = () =>
      send.mutate({ chat, message: { type: "voice", audioData: String(reader.result) } });
    reader.readAsDataURL(file);
  };

  return (
    <form
      className="composer"
      onSubmit={(event) => {
        event.preventDefault();
        sendText();
      }}
    >
      <label className="visually-hidden" htmlFor="composer-text">
        Message
      </label>
      <textarea
        id="composer-text"
        rows={2}
        placeholder="Write a message"
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          if (Date.now() - lastTyping.current > TYPING_EVERY_MS) {
            lastTyping.current = Date.now();
            typing.mutate({ chat, typing: true });
          }
        }}
        onKeyDown={(event) => {
          if (event.key === "Enter" && !event.shiftKey) {
            event.preventDefault();
            sendText();
          }
        }}
        data-testid="composer-text"
      />
      <div className="composer-actions">
        <label className="secondary small file-button" title="Send an audio file as a voice note">
          Voice note
          <input
            type="file"
            accept="audio/*"
            className="visually-hidden"
            onChange={(event) => {
              const file = event.target.files?.[0];
              if (file) sendVoice(file);
              event.target.value = "";
            }}
            data-testid="composer-voice"
          />
        </label>
        <button type="submit" disabled={send.isPending || !text.trim()} data-testid="composer-send">
          Send
        </button>
      </div>
      <FormError message={error?.message} testId="composer-error" />
    </form>
  );
}

function NotAContact({ num }: { num: string }) {
  return (
    <p className="hint" data-testid="chat-not-contact">
      This agent is not in your contacts, so it cannot reach you.{" "}
      <Link href={`/chats/add?agent=${num}`}>Add it again</Link>
    </p>
  );
}
