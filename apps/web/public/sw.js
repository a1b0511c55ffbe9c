// The console's service worker (registered by src/components/service-worker.tsx). It does one
// thing: when a page cannot be reached because the network is down, it answers with the offline
// page. It caches that page alone: never an API answer, a page or anything of the person's.
// Everything but navigations goes to the network untouched.
const CACHE = "switchboard-offline-v1";
const OFFLINE = "/offline.html";

self.addEventListener("install", (event) => {
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
