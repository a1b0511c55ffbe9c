"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { signOut } from "next-auth/react";

const links = [
  { href: "/agents", label: "Agents" },
  { href: "/self-chat", label: "Self chat" },
];

export function ConsoleNav({ name, num }: { name: string | null; num: string }) {
  const path = usePathname();
  return (
    <aside className="sidebar">
      <div className="brand">Switchboard</div>
      <nav aria-label="Console">
        {links.map((link) => (
          <Link
            key={link.href}
            href={link.href}
            aria-current={path.startsWith(link.href) ? "page" : undefined}
          >
            {link.label}
          </Link>
        ))}
      </nav>
      <div className="whoami" data-testid="whoami">
        <strong>{name ?? "You"}</strong>
        <span className="mono">{num}</span>
        <div>
          <button
            type="button"
            className="link"
            onClick={() => signOut({ callbackUrl: "/signin" })}
            data-testid="sign-out"
          >
            Sign out
          </button>
        </div>
      </div>
    </aside>
  );
}
