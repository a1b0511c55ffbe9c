/**
 * This browser's Web Push subscription (docs/notifications.md): made with the instance's VAPID
 * public key and registered for the signed-in person, or removed (Settings, and on sign-out).
 */

const ROUTE = "/api/console/push-subscriptions";

/** Whether this browser can get pushes at all (a service worker, the Push API, notifications). */
export function pushSupported(): boolean {
  return (
    typeof window !== "undefined" &&
    "serviceWorker" in navigator &&
    "PushManager" in window &&
    "Notification" in window
  );
}

/** base64url → the bytes `applicationServerKey` takes. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64url.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(new ArrayBuffer(text.length));
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** The current subscription of this browser, or null. */
export async function currentSubscription(): Promise<PushSubscription | null> {
  if (!pushSupported()) return null;
  const registration = await navigator.serviceWorker.getRegistration("/");
  return (await registration?.pushManager.getSubscription()) ?? null;
}

/**
 * Asks for permission, subscribes, and registers the subscription with the console. Answers why
 * it could not, in words, or null when it worked.
 */
export async function subscribeThisBrowser(vapidPublicKey: string): Promise<string | null> {
  if (!pushSupported()) return "This browser cannot show notifications from the console.";
  const permission = await Notification.requestPermission();
  if (permission !== "granted")
    return "Notifications are blocked for this site; allow them in the browser's site settings.";
  const registration = await navigator.serviceWorker.ready;
  const subscription =
    (await registration.pushManager.getSubscription()) ??
    (await registration.pushManager.subscribe({
      userVisibleOnly: true,
      applicationServerKey: keyBytes(vapidPublicKey),
    }));
  const answer = await fetch(ROUTE, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(subscription.toJSON()),
  });
  if (answer.ok) return null;
  const body = (await answer.json().catch(() => null)) as { error?: { message?: string } } | null;
  return body?.error?.message ?? "The console could not register this browser.";
}

/** Removes this browser's subscription, at the console and in the browser. Never throws. */
export async function unsubscribeThisBrowser(): Promise<void> {
  try {
    const subscription = await currentSubscription();
    if (!subscription) return;
    await fetch(ROUTE, {
      method: "DELETE",
      credentials: "same-origin",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ endpoint: subscription.endpoint }),
    });
    await subscription.unsubscribe();
  } catch {
    // Signing out goes on: the push service's 410 removes a subscription left behind.
  }
}
