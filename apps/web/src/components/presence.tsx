"use client";

import { useMutation } from "@tanstack/react-query";
import { useEffect } from "react";
import { useTRPC } from "~/trpc/client";

/** A visible tab renews its lease this often (the server's lasts 75 s). */
const RENEW_MS = 30_000;

/** This tab's own id for the session (sessionStorage), so each tab holds its own lease. */
function tabId(): string {
  const key = "switchboard.tab";
  let id = sessionStorage.getItem(key);
  if (!id) {
    id = crypto.randomUUID().replaceAll("-", "");
    sessionStorage.setItem(key, id);
  }
  return id;
}

/**
 * Tells the server whether the person is looking at this tab (visible and focused): an agent's
 * message is pushed to their devices only while they look at none (docs/notifications.md). A
 * change is reported at once, a visible tab renews its lease every RENEW_MS, and a tab that
 * closes without saying so loses its lease when it expires.
 */
export function Presence() {
  const trpc = useTRPC();
  const { mutate } = useMutation(trpc.settings.presence.mutationOptions());
  useEffect(() => {
    const id = tabId();
    let last: boolean | null = null;
    let lastAt = 0;
    const report = () => {
      const visible = document.visibilityState === "visible" && document.hasFocus();
      const now = Date.now();
      if (visible === last && (!visible || now - lastAt < RENEW_MS - 1000)) return;
      last = visible;
      lastAt = now;
      mutate({ tabId: id, visible });
    };
    report();
    const timer = setInterval(report, RENEW_MS);
    document.addEventListener("visibilitychange", report);
    window.addEventListener("focus", report);
    window.addEventListener("blur", report);
    window.addEventListener("pagehide", report);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", report);
      window.removeEventListener("focus", report);
      window.removeEventListener("blur", report);
      window.removeEventListener("pagehide", report);
    };
  }, [mutate]);
  return null;
}
