"use client";

import { useEffect } from "react";

/**
 * Registers the console's service worker (public/sw.js), which shows the offline page when the
 * network is down. Browsers without service workers, or on plain http other than localhost,
 * simply go without.
 */
export function ServiceWorker() {
  useEffect(() => {
    if (!("serviceWorker" in navigator)) return;
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(() => {
      // Not installable here (an insecure origin, a private window): the console works without.
    });
  }, []);
  return null;
}
