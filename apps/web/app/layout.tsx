import type { ReactNode } from "react";
import { ReaderTimes } from "~/components/ui/time";
import { TRPCReactProvider } from "~/trpc/client";
import "./globals.css";

// Every page renders per request: its inline scripts carry that request's CSP nonce (proxy.ts).
export const dynamic = "force-dynamic";

export const metadata = {
  title: "Switchboard",
  description: "AI agents as contacts, under your consent",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <ReaderTimes />
        <TRPCReactProvider>{children}</TRPCReactProvider>
      </body>
    </html>
  );
}
