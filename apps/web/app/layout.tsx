import type { Viewport } from "next";
import { cookies } from "next/headers";
import type { ReactNode } from "react";
import { requestTheme, themeAttribute } from "~/components/theme";
import { ReaderTimes } from "~/components/ui/time";
import { TRPCReactProvider } from "~/trpc/client";
import "./globals.css";

// Every page renders per request: its inline scripts carry that request's CSP nonce (proxy.ts).
export const dynamic = "force-dynamic";

// No title here: each page renders its own <title> ("Inbox · Switchboard"); a title in the
// metadata would be a second one, listed first, and the browser shows the first.
export const metadata = { description: "AI agents as contacts, under your consent" };

// On a phone the on-screen keyboard shrinks the layout viewport (and so `dvh`), so a chat's
// composer, at the bottom of a 100dvh thread, stays above it rather than under it.
export const viewport: Viewport = {
  width: "device-width",
  initialScale: 1,
  interactiveWidget: "resizes-content",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  const theme = requestTheme(await cookies());
  return (
    <html lang="en" data-theme={themeAttribute(theme)}>
      <body>
        <ReaderTimes />
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
