"use client";

import { useEffect, useId, useRef, useState } from "react";
import { buttonClass } from "~/components/ui/button";
import styles from "./chat.module.css";

export interface ReactionSummary {
  emoji: string;
  count: number;
  /** The person reacted with it. */
  mine: boolean;
}

const quickReactions = ["👍", "❤️", "😂", "😮", "🙏"];

/** Something else to do with the message, after the reactions in its menu (Reply, Copy). */
export interface MessageAction {
  label: string;
  onSelect: () => void;
  testId: string;
}

/**
 * One button per message that opens a small menu (so Tab passes a message in one step): its
 * reactions, each adding the reaction or taking it back when it is the person's, then the
 * message's other actions. Arrow keys move through the menu, Escape closes it and focus
 * returns to the button.
 */
export function ReactionMenu({
  reactions,
  onReact,
  actions = [],
}: {
  reactions: Map<string, ReactionSummary>;
  onReact: (emoji: string, on: boolean) => void;
  actions?: MessageAction[];
}) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const id = useId();
  const choices = [...new Set([...quickReactions, ...reactions.keys()])];

  const close = (refocus: boolean) => {
    setOpen(false);
    if (refocus) button.current?.focus();
  };
  useEffect(() => {
    if (!open) return;
    menu.current?.querySelector<HTMLButtonElement>("button")?.focus();
    const onPointer = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!menu.current?.contains(target) && !button.current?.contains(target)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointer);
    return () => document.removeEventListener("pointerdown", onPointer);
  }, [open]);

  const onMenuKey = (event: React.KeyboardEvent) => {
    const items = [...(menu.current?.querySelectorAll<HTMLButtonElement>("button") ?? [])];
    const at = items.indexOf(document.activeElement as HTMLButtonElement);
    const move = (to: number) => items[(to + items.length) % items.length]?.focus();
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      close(true);
    } else if (event.key === "ArrowRight" || event.key === "ArrowDown") {
      event.preventDefault();
      move(at + 1);
    } else if (event.key === "ArrowLeft" || event.key === "ArrowUp") {
      event.preventDefault();
      move(at - 1);
    } else if (event.key === "Home") {
      event.preventDefault();
      move(0);
    } else if (event.key === "End") {
      event.preventDefault();
      move(-1);
    } else if (event.key === "Tab") close(false);
  };

  return (
    <span className={styles.reactWrap}>
      <button
        type="button"
        ref={button}
        className={buttonClass({}, styles.reactButton)}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        aria-label={actions.length > 0 ? "React, reply or copy" : "React"}
        title={actions.length > 0 ? "React, reply or copy" : "React"}
        onClick={() => setOpen((shown) => !shown)}
        data-testid="react-button"
      >
        <span aria-hidden="true">☺</span>
      </button>
      {open && (
        <div
          role="menu"
          id={id}
          ref={menu}
          aria-label="Reactions"
          className={styles.reactMenu}
          onKeyDown={onMenuKey}
          tabIndex={-1}
        >
          {choices.map((emoji) => {
            const own = reactions.get(emoji)?.mine ?? false;
            return (
              <button
                type="button"
                role="menuitemcheckbox"
                aria-checked={own}
                aria-label={own ? `Take back ${emoji}` : `React ${emoji}`}
                tabIndex={-1}
                key={emoji}
                className={buttonClass({}, own ? styles.ownReaction : undefined)}
                onClick={() => {
                  onReact(emoji, !own);
                  close(true);
                }}
              >
                {emoji}
              </button>
            );
          })}
          {actions.map((action) => (
            <button
              type="button"
              role="menuitem"
              tabIndex={-1}
              key={action.testId}
              className={buttonClass({}, styles.menuAction)}
              onClick={() => {
                close(true);
                action.onSelect();
              }}
              data-testid={action.testId}
            >
              {action.label}
            </button>
          ))}
        </div>
      )}
    </span>
  );
}
