import type { ReactNode } from "react";

export default function AuthLayout({ children }: { children: ReactNode }) {
  return (
    <main className="auth">
      <div className="card">
        <div className="brand">Switchboard</div>
        {children}
      </div>
    </main>
  );
}
