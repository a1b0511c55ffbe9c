"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOut } from "next-auth/react";
import { useState } from "react";
import { LiveUpdates } from "./live-updates";

const links = [
  { href: "/chats", label: "Chats" },
  { href: "/agents", label: "Agents" },
  { href: "/records/tasks", label: "Records", section: "/records" },
  { href: "/self-chat", label: "Self chat" },
];

/** The console's side navigation, with who is signed in and a way out. */
export function ConsoleNav({ name, num }: { name: string | null; num: string }) {
  const path = usePathname();
  const [signingOut, setSigningOut] = useState(false);
  return (
    <aside className="sidebar">
      <Link href="/agents" className="brand">
        <span className="brand-mark" aria-hidden="true" />
        Switchboard
      </Link>
      <nav aria-label="Console">
        {links.map((link) => (
          <Link
            key={link.href}
            href={link.href}
            aria-current={path.startsWith(link.section ?? link.href) ? "page" : undefined}
            data-testid={`nav-${(link.section ?? link.href).slice(1)}`}
          >
            {link.label}
          </Link>
        ))}
      </nav>
      <div className="sidebar-live">
        <LiveUpdates />
      </div>
      <div className="whoami" data-testid="whoami">
        <span className="avatar" aria-hidden="true">
          {(name ?? "?").trim().charAt(0).toUpperCase() || "?"}
        </span>
        <div className="whoami-text">
          <strong>{name ?? "You"}</strong>
          <span className="mono" data-testid="whoami-num">
            {num}
          </span>
        </div>
        <button
          type="button"
          className="link"
          disabled={signingOut}
          onClick={() => {
            setSigningOut(true);
            void signOut({ callbackUrl: "/signin" });
          }}
          data-testid="sign-out"
        >
          Sign out
        </button>
      </div>
    </aside>
  );
}
