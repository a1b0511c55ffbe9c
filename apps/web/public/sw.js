// The console's service worker (registered by src/components/service-worker.tsx). When a page
// cannot be reached because the network is down, it answers with the offline page. It caches
// that page alone: never an API answer, a page or anything of the person's. Everything but
// navigations goes to the network untouched. It also shows the person's Web Push notifications
// (docs/notifications.md): a card with Approve and Reject, closed again when it is decided.
const CACHE = "switchboard-offline-v1";
const OFFLINE = "/offline.html";

self.addEventListener("install", (event) => {
  // Only navigations need this worker. Where the browser routes by rule (the Static Routing
  // API), every other request skips it altogether: a request that went through it could be lost
  // with a page going away (an undo sent on pagehide never left, about one time in twenty).
  try {
    event.addRoutes?.({ condition: { not: { requestMode: "navigate" } }, source: "network" });
  } catch {
    // A browser without the rule's kind of condition: requests go through the handler below.
  }
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.add(new Request(OFFLINE, { cache: "reload" })))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  if (event.request.mode !== "navigate") return;
  event.respondWith(
    fetch(event.request).catch(() =>
      caches.match(OFFLINE).then((page) => page ?? Response.error()),
    ),
  );
});

/** What a push carries: `{ type, id, title, body, url, actions, tag }` (core's push-words.ts). */
function readPush(event) {
  try {
    return event.data ? event.data.json() : null;
  } catch {
    return null;
  }
}

self.addEventListener("push", (event) => {
  const push = readPush(event);
  if (!push || typeof push.tag !== "string") return;
  if (push.type === "close") {
    // Decided or expired elsewhere: the notification about it goes away.
    event.waitUntil(
      self.registration.getNotifications({ tag: push.tag }).then((shown) => {
        for (const notification of shown) notification.close();
      }),
    );
    return;
  }
  event.waitUntil(
    self.registration.showNotification(push.title || "Switchboard", {
      body: push.body,
      tag: push.tag,
      renotify: push.type === "reminder",
      requireInteraction: push.type === "card" || push.type === "reminder",
      icon: "/icon-192.png",
      data: { type: push.type, id: push.id, url: push.url },
      actions: Array.isArray(push.actions) ? push.actions : [],
    }),
  );
});

/** A console page of this origin: focused when one is open, else opened. */
function openPage(url) {
  const target = new URL(url || "/chats", self.location.origin);
  if (target.origin !== self.location.origin) return Promise.resolve();
  return self.clients.matchAll({ type: "window", includeUncontrolled: true }).then((tabs) => {
    const tab = tabs.find((candidate) => new URL(candidate.url).origin === target.origin);
    if (tab) return tab.navigate(target.href).then((page) => (page || tab).focus());
    return self.clients.openWindow(target.href);
  });
}

/** A card decided from its notification, under the console's rules; the answer in words. */
function decide(notification, decision) {
  const { id, url } = notification.data ?? {};
  return fetch(`/api/console/actions/${encodeURIComponent(id)}/decision`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ decision }),
  })
    .then((answer) =>
      answer.ok
        ? null
        : answer
            .json()
            .catch(() => null)
            .then((body) =>
              answer.status === 401
                ? "Sign in to the console to decide this card."
                : `This card can no longer be decided: ${body?.error?.message || "it changed meanwhile"}.`,
            ),
    )
    .catch(() => "The card could not be decided: no connection. Open it to try again.")
    .then((problem) => {
      if (!problem) return undefined;
      return self.registration.showNotification(notification.title || "Switchboard", {
        body: problem,
        tag: notification.tag,
        data: { type: "problem", id, url },
      });
    });
}

self.addEventListener("notificationclick", (event) => {
  const notification = event.notification;
  notification.close();
  if (event.action === "approve" || event.action === "reject") {
    event.waitUntil(decide(notification, event.action));
    return;
  }
  // A click on the notification itself (or Edit): the card, in its chat.
  event.waitUntil(openPage(notification.data?.url));
});
