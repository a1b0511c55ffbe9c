import { Fragment } from "react";
import { linkParts } from "./link-parts";
import bubble from "./ui/bubble.module.css";

/**
 * Message text with its web addresses clickable. Links open in a new tab, tell the other site
 * nothing (no opener, no referrer) and pass no ranking (nofollow); `javascript:` and every other
 * scheme stay plain text.
 */
export function LinkifiedText({ text }: { text: string }) {
  return (
    <>
      {linkParts(text).map((part, i) =>
        part.href ? (
          <a
            // biome-ignore lint/suspicious/noArrayIndexKey: parts of one fixed text.
            key={i}
            href={part.href}
            target="_blank"
            rel="noopener noreferrer nofollow"
            className={bubble.link}
          >
            {part.text}
          </a>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: parts of one fixed text.
          <Fragment key={i}>{part.text}</Fragment>
        ),
      )}
    </>
  );
}
