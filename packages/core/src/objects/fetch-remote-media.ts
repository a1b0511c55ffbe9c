import { MAX_MEDIA_BYTES } from "@switchboard/contract";
import type { Config } from "../config";
import { CoreError } from "../errors";
import { URL_NOT_ALLOWED } from "../net/address-policy";
import { pinnedRequest } from "../net/pinned-request";
import type { MediaInput } from "./prepare-media";
import { sniffImage, sniffVideo } from "./sniff-media";

/** Redirects followed, each to a host checked again. */
const MAX_REDIRECTS = 3;

/**
 * The remote kinds the service fetches instead of letting the person's browser load them from
 * the agent's server (which would tell the agent the person's address and reading time).
 */
const sniffers = { image: sniffImage, video: sniffVideo } as const;
const kindNames = {
  image: "a png, jpeg, gif or webp image",
  video: "an mp4, mov, webm or ogg video",
};

export type RemoteKind = keyof typeof sniffers;

/** A byte bound in words: "10 MB", "512 KB". */
const sizeWords = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MB` : `${Math.round(bytes / 1024)} KB`;

export const isRemoteMedia = (
  media: MediaInput | undefined,
): media is MediaInput & { kind: RemoteKind; source: { type: "url"; url: string } } =>
  media?.source.type === "url" && media.kind in sniffers;

/**
 * A URL whose media is fetched at send time: https, or http to a host of the development setting
 * MEDIA_ALLOW_INSECURE_HOSTS. Null for anything else (the value is then read as a data URL or
 * `/objects/...` path).
 */
export function remoteMediaInput(
  config: Pick<Config, "MEDIA_ALLOW_INSECURE_HOSTS">,
  kind: RemoteKind,
  field: string,
  value: string,
): MediaInput | null {
  if (!/^http:/i.test(value)) return null;
  try {
    const url = new URL(value);
    const allowed = config.MEDIA_ALLOW_INSECURE_HOSTS.some(
      (host) => host.toLowerCase() === url.hostname.replace(/^\[|\]$/g, "").toLowerCase(),
    );
    return allowed ? { kind, field, source: { type: "url", url: value } } : null;
  } catch {
    return null;
  }
}

/**
 * Fetches an image or video URL once, for the object store: through the SSRF-safe pinned request
 * webhooks use (public addresses only, the address checked is the one connected to), at most
 * 10 MB, within MEDIA_FETCH_TIMEOUT_MS, up to 3 redirects each checked again, and recognised by
 * its content, never by its Content-Type. Refusals carry the field in `issues`:
 * 422 `media_fetch_failed`, 413 `media_too_large`, 415 `unsupported_media`. `maxBytes` lowers
 * the size bound (an avatar's is far below a message's).
 */
export async function fetchRemoteMedia(
  config: Pick<Config, "MEDIA_ALLOW_INSECURE_HOSTS" | "MEDIA_FETCH_TIMEOUT_MS">,
  media: MediaInput & { kind: RemoteKind; source: { type: "url"; url: string } },
  maxBytes: number = MAX_MEDIA_BYTES,
): Promise<MediaInput> {
  const refuse = (
    code: "media_fetch_failed" | "media_too_large" | "unsupported_media",
    why: string,
  ) =>
    new CoreError(code, `${media.field}: ${why}`, {
      issues: [{ path: media.field, message: why }],
    });
  let url = new URL(media.source.url);
  for (let hop = 0; ; hop++) {
    // Credentials would be sent to the host (a redirect must not add any either).
    if (url.username || url.password)
      throw refuse("media_fetch_failed", "the URL must not contain credentials");
    const answer = await pinnedRequest(url, {
      method: "GET",
      headers: { Accept: `${media.kind}/*`, "User-Agent": "Switchboard-Media/1" },
      timeoutMs: config.MEDIA_FETCH_TIMEOUT_MS,
      // DNS through its own resolver, bounded by the fetch's timeout (not libuv's pool).
      policy: {
        allowInsecureHosts: config.MEDIA_ALLOW_INSECURE_HOSTS,
        resolveTimeoutMs: config.MEDIA_FETCH_TIMEOUT_MS,
      },
      maxBodyBytes: maxBytes,
    });
    if (!answer.ok) {
      if (answer.reason === "too_large")
        throw refuse("media_too_large", `the media is larger than ${sizeWords(maxBytes)}`);
      // Whether a name does not resolve or resolves somewhere private is not the agent's to
      // learn (it would map the service's network through DNS): one answer for both.
      if (answer.reason === "address") throw refuse("media_fetch_failed", URL_NOT_ALLOWED);
      throw refuse("media_fetch_failed", `could not be fetched: ${answer.error}`);
    }
    const location = answer.headers.location;
    if (answer.status >= 300 && answer.status < 400 && location) {
      if (hop >= MAX_REDIRECTS)
        throw refuse("media_fetch_failed", `more than ${MAX_REDIRECTS} redirects`);
      const next = URL.canParse(location, url.href) ? new URL(location, url) : null;
      if (!next) throw refuse("media_fetch_failed", "redirects to an invalid URL");
      url = next;
      const insecureOk = remoteMediaInput(config, media.kind, media.field, url.toString());
      if (url.protocol !== "https:" && !insecureOk)
        throw refuse("media_fetch_failed", "redirects to a URL that is not https");
      continue;
    }
    if (answer.status < 200 || answer.status >= 300)
      throw refuse("media_fetch_failed", `could not be fetched: answered ${answer.status}`);
    if (answer.body.length === 0) throw refuse("unsupported_media", "the answer is empty");
    const mimeType = sniffers[media.kind](answer.body);
    if (!mimeType) throw refuse("unsupported_media", `is not ${kindNames[media.kind]}`);
    return { ...media, source: { type: "bytes", bytes: answer.body, mimeType } };
  }
}
