"use client";

import { useId, useRef, useState } from "react";
import { Icon } from "~/components/icon";
import bubble from "~/components/ui/bubble.module.css";
import { buttonClass } from "~/components/ui/button";
import ui from "~/components/ui/layout.module.css";
import { Modal } from "~/components/ui/modal";
import styles from "./lightbox.module.css";

/**
 * A chat image that opens larger, as chat apps do: the picture is a button that shows it in a
 * lightbox (the console's modal dialog, from the same URL, so nothing new is fetched). Escape,
 * the close button or a click beside the picture closes it, and focus returns to the picture.
 */
export function ZoomableImage({
  src,
  alt,
  caption,
}: {
  src: string | undefined;
  alt: string;
  /** The message's own words, shown under the large picture. */
  caption?: string;
}) {
  const [open, setOpen] = useState(false);
  const close = useRef<HTMLButtonElement>(null);
  const captionId = useId();
  return (
    <>
      <button
        type="button"
        className={buttonClass({}, styles.opener)}
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
        data-testid="image-open"
      >
        {/* biome-ignore lint/performance/noImgElement: chat media is served by our own route. */}
        <img className={bubble.image} src={src} alt={alt} />
        <span className={ui.visuallyHidden}> (open larger)</span>
      </button>
      {open && (
        <Modal
          className={styles.lightbox}
          labelledBy={caption ? captionId : undefined}
          label={caption ? undefined : alt}
          initialFocus={close}
          closeOnBackdrop
          onClose={() => setOpen(false)}
          testId="lightbox"
        >
          <figure className={styles.figure}>
            {/* biome-ignore lint/performance/noImgElement: the same media URL as in the chat. */}
            <img className={styles.picture} src={src} alt={alt} data-testid="lightbox-image" />
            {caption && (
              <figcaption id={captionId} className={styles.caption}>
                {caption}
              </figcaption>
            )}
          </figure>
          <button
            ref={close}
            type="button"
            className={buttonClass({}, styles.close)}
            onClick={() => setOpen(false)}
            aria-label="Close"
            data-testid="lightbox-close"
          >
            <Icon name="close" />
          </button>
        </Modal>
      )}
    </>
  );
}
