import type { MetadataRoute } from "next";

/**
 * The web app manifest (`/manifest.webmanifest`; Next links it from every page, the sign-in page
 * included), so the console installs as an app that opens on the chats. Colours are the
 * console's tokens (globals.css: --accent, --bg). The icons in public/ are app/icon.svg drawn at
 * 192 and 512 px, and a maskable one with the mark inside the middle 80 %.
 */
export default function manifest(): MetadataRoute.Manifest {
  return {
    name: "Switchboard",
    short_name: "Switchboard",
    description: "AI agents as contacts, under your consent",
    id: "/chats",
    start_url: "/chats",
    scope: "/",
    display: "standalone",
    theme_color: "#2f5bea",
    background_color: "#f5f6f8",
    icons: [
      { src: "/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
      { src: "/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
      { src: "/icon-maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
    ],
  };
}
