"use client";

import type { AgentUser } from "@switchboard/contract";
import { useEffect, useRef, useState } from "react";
import { Avatar, initialOf } from "~/components/ui/avatar";
import styles from "./chat.module.css";

/**
 * An agent's picture, through the console's own route (`/api/console/avatar/<id>`: the browser
 * never loads the agent's `avatarUrl` itself), named by a version of the URL so a new picture
 * is a new address; its initial when it has none, or until the picture loads, or when the
 * route refuses it (not an image, too large, unreachable).
 */
export function AgentAvatar({
  agent,
  className,
}: {
  agent: Pick<AgentUser, "id" | "displayName" | "avatarUrl">;
  className?: string;
}) {
  const [failed, setFailed] = useState<string | null>(null);
  const image = useRef<HTMLImageElement>(null);
  const url = agent.avatarUrl;
  // A picture that failed before the page was hydrated fired its error with no one listening.
  useEffect(() => {
    const shown = image.current;
    if (url && shown?.complete && shown.naturalWidth === 0) setFailed(url);
  }, [url]);
  const showPicture = url !== null && failed !== url;
  return (
    <Avatar agent className={className}>
      {showPicture ? (
        // biome-ignore lint/performance/noImgElement: served by our own route, already small.
        <img
          ref={image}
          className={styles.avatarImage}
          src={`/api/console/avatar/${agent.id}?v=${versionOf(url)}`}
          alt=""
          width={34}
          height={34}
          onError={() => setFailed(url)}
          data-testid="agent-avatar-image"
        />
      ) : (
        initialOf(agent.displayName, "A")
      )}
    </Avatar>
  );
}

/** A short fingerprint of the picture's URL (not a secret; it only changes the address). */
function versionOf(url: string): string {
  let hash = 5381;
  for (let i = 0; i < url.length; i++) hash = ((hash * 33) ^ url.charCodeAt(i)) >>> 0;
  return hash.toString(36);
}
