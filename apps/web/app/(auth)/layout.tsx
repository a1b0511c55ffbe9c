import type { ReactNode } from "react";
import { redirectIfSignedIn } from "~/auth/session";

export const dynamic = "force-dynamic";

export default async function AuthLayout({ children }: { children: ReactNode }) {
  await redirectIfSignedIn();
  return (
    <main className="auth">
      <div className="card">
        <div className="brand">
          <span className="brand-mark" aria-hidden="true" />
          Switchboard
        </div>
        {children}
      </div>
    </main>
  );
}
