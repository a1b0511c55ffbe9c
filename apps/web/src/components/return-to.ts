/**
 * Where sign-in sends someone back to: only a path on this site ("/chats/cnv_1?x=y"). Anything
 * else — another origin, a protocol-relative `//host`, a backslash trick, a `javascript:` URL —
 * is dropped, so a crafted sign-in link can never send a person off-site.
 */
export function safeReturnPath(value: string | null | undefined): string | null {
  if (!value?.startsWith("/") || value.startsWith("//") || value.includes("\\")) return null;
  try {
    const url = new URL(value, "http://console.invalid");
    if (url.origin !== "http://console.invalid") return null;
    return `${url.pathname}${url.search}${url.hash}`;
  } catch {
    return null;
  }
}

/** The sign-in page, asked to come back to `path` afterwards. */
export function signInPath(path: string): string {
  const back = safeReturnPath(path);
  return back && back !== "/" ? `/signin?callbackUrl=${encodeURIComponent(back)}` : "/signin";
}
