import type { ReactNode } from "react";
import { redirectIfSignedIn } from "~/auth/session";
import { AuthPage } from "~/components/status-page";

export const dynamic = "force-dynamic";

export default async function AuthLayout({ children }: { children: ReactNode }) {
  await redirectIfSignedIn();
  return <AuthPage>{children}</AuthPage>;
}
