/** The host name in a Node network error ("getaddrinfo ENOTFOUND hooks.example.com"). */
const hostIn = (error: string) => /(?:ENOTFOUND|EAI_AGAIN)\s+(\S+)/.exec(error)?.[1];

const statusWords: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  408: "Request Timeout",
  413: "Payload Too Large",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/**
 * A failed delivery in words an owner can act on: what happened and what to check, instead of
 * `getaddrinfo ENOTFOUND …` or `answered 502`. The raw error stays in the delivery's details.
 */
export function explainDeliveryError(
  error: string | null,
  httpStatus: number | null,
): string | null {
  if (httpStatus !== null && (httpStatus < 200 || httpStatus >= 300)) {
    const words = statusWords[httpStatus] ? ` ${statusWords[httpStatus]}` : "";
    if (httpStatus === 410)
      return "Your endpoint answered 410 Gone, so the webhook was turned off. Resume it when the endpoint is back.";
    if (httpStatus >= 300 && httpStatus < 400)
      return `Your endpoint answered ${httpStatus} (a redirect). Redirects are never followed: use the final URL.`;
    if (httpStatus === 401 || httpStatus === 403)
      return `Your endpoint answered ${httpStatus}${words}. Check that it accepts requests signed with X-Svc-Signature.`;
    if (httpStatus >= 500)
      return `Your endpoint answered ${httpStatus}${words}: it failed while handling the event. Check its logs.`;
    return `Your endpoint answered ${httpStatus}${words}. Only a 2xx answer counts as delivered.`;
  }
  if (!error) return null;
  // The webhook's last error keeps only the words: "answered 503".
  const answered = /^answered (\d{3})/.exec(error)?.[1];
  if (httpStatus === null && answered) return explainDeliveryError(null, Number(answered));
  if (/ENOTFOUND|EAI_AGAIN|does not resolve/.test(error)) {
    const host = hostIn(error) ?? /^(\S+) does not resolve/.exec(error)?.[1];
    return `The host name ${host ?? "in the URL"} could not be found. Check the URL for typos, and that its DNS record exists.`;
  }
  if (/ECONNREFUSED/.test(error))
    return "The connection was refused: nothing is listening at that address and port. Check that your server is running.";
  if (/no answer within|ETIMEDOUT|ESOCKETTIMEDOUT|timed? ?out/i.test(error))
    return "Your endpoint did not answer in time. It must reply within 10 seconds; do slow work after answering.";
  if (/ECONNRESET|socket hang up|EPIPE/.test(error))
    return "The connection closed before your endpoint answered. Check that it returns a response.";
  if (/CERT|certificate|self[- ]signed|TLS|SSL|ERR_TLS/i.test(error))
    return "Your endpoint's TLS certificate is not valid for this host name. Use a certificate from a public authority.";
  if (/URL is not allowed/.test(error))
    return "The URL is not allowed. Webhooks go only to hosts on the public internet.";
  if (/non-public address|public address|public host/.test(error))
    return "The URL points to a private or local address. Webhooks go only to public hosts.";
  if (/EHOSTUNREACH|ENETUNREACH/.test(error))
    return "Your endpoint's network could not be reached. Check the host and its firewall.";
  if (error === "webhook disabled")
    return "Not sent: the webhook was turned off. Resume it to send these events again.";
  return `The delivery failed: ${error}.`;
}
