"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";
import { useEffect, useId, useState } from "react";
import { signOutOfConsole } from "~/trpc/client";
import { Brand } from "./brand";
import styles from "./console-nav.module.css";
import { Icon, type IconName } from "./icon";
import { LiveUpdates } from "./live-updates";
import type { Theme } from "./theme";
import { ThemeChoice } from "./theme-choice";
import { Avatar, initialOf } from "./ui/avatar";
import { buttonClass } from "./ui/button";
import ui from "./ui/layout.module.css";
import { shownCount, waitingLabel } from "./waiting-count";
import { useWaitingCount } from "./waiting-signals";

/**
 * `more`: on a phone these live in the account menu, so the tab bar keeps room for its labels;
 * `short`: the tab bar's label, where the whole one does not fit.
 */
const links: {
  href: string;
  label: string;
  short?: string;
  section?: string;
  icon: IconName;
  more?: true;
}[] = [
  { href: "/chats", label: "Chats", icon: "chat" },
  { href: "/waiting", label: "Waiting for you", short: "Waiting", icon: "waiting" },
  { href: "/inbox", label: "Inbox", icon: "inbox" },
  { href: "/feed", label: "Feed", icon: "feed" },
  { href: "/calls", label: "Calls", icon: "calls" },
  { href: "/agents", label: "Agents", icon: "agent" },
  { href: "/records/tasks", label: "Records", section: "/records", icon: "records" },
  { href: "/self-chat", label: "Self chat", icon: "self", more: true },
  { href: "/docs", label: "API reference", icon: "docs", more: true },
  { href: "/settings", label: "Settings", icon: "settings", more: true },
];

/** An open chat (not the list, not adding an agent): on a phone it is a screen of its own. */
export function isChatScreen(path: string): boolean {
  return /^\/chats\/(?!add$)[^/]+$/.test(path);
}

/**
 * The console's navigation with who is signed in and a way out. On a wide screen it is the dark
 * side bar; on a phone it is a slim top bar (brand, live state, an account menu holding the name,
 * number, the less used sections, the theme and Sign out) plus a bottom tab bar with the main
 * sections. In an open chat on a phone both give way, as in the chat apps: the chat's own header
 * leads back to the list, and the messages get the screen.
 */
export function ConsoleNav({
  name,
  num,
  theme,
}: {
  name: string | null;
  num: string;
  theme: Theme;
}) {
  const path = usePathname();
  const [signingOut, setSigningOut] = useState(false);
  const [accountOpen, setAccountOpen] = useState(false);
  const accountId = useId();
  // A navigation closes the account menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: runs when the path changes.
  useEffect(() => setAccountOpen(false), [path]);
  const initial = initialOf(name);
  const waiting = useWaitingCount();
  return (
    // "sidebar" stays a global name too: the live dot (live-updates.module.css) is lighter on it.
    <aside
      className={`${styles.sidebar} sidebar`}
      data-chat-screen={isChatScreen(path) || undefined}
      data-testid="console-nav"
    >
      <div className={styles.top}>
        <Brand href="/" onDark className={styles.brand} />
        <div className={styles.live}>
          <LiveUpdates />
        </div>
        <button
          type="button"
          className={buttonClass({}, styles.accountToggle)}
          aria-expanded={accountOpen}
          aria-controls={accountId}
          aria-label={`Account: ${name ?? "you"}`}
          onClick={() => setAccountOpen((open) => !open)}
          data-testid="account-toggle"
        >
          <Avatar className={styles.avatar}>{initial}</Avatar>
        </button>
      </div>
      <nav aria-label="Console" className={styles.sections}>
        {links.map((link) => (
          <Link
            key={link.href}
            href={link.href}
            className={link.more ? styles.more : undefined}
            aria-current={path.startsWith(link.section ?? link.href) ? "page" : undefined}
            data-testid={`nav-${(link.section ?? link.href).slice(1)}`}
            // The count in words ("Waiting for you, 3"); the badge only shows it.
            aria-label={link.href === "/waiting" ? waitingLabel(waiting) : undefined}
          >
            <Icon name={link.icon} />
            {link.short ? (
              <>
                <span className={styles.long}>{link.label}</span>
                <span className={styles.short} aria-hidden="true">
                  {link.short}
                </span>
              </>
            ) : (
              <span>{link.label}</span>
            )}
            {link.href === "/waiting" && waiting > 0 && (
              <span className={styles.count} aria-hidden="true" data-testid="nav-waiting-count">
                {shownCount(waiting)}
              </span>
            )}
          </Link>
        ))}
      </nav>
      <div
        className={accountOpen ? `${styles.whoami} ${styles.open}` : styles.whoami}
        id={accountId}
        data-testid="whoami"
        title={name ?? undefined}
      >
        <Avatar className={styles.avatar}>{initial}</Avatar>
        <div className={styles.whoamiText}>
          <strong className={ui.truncate}>{name ?? "You"}</strong>
          <span className={`${ui.mono} ${ui.nowrap}`} data-testid="whoami-num">
            {num}
          </span>
        </div>
        <nav aria-label="More" className={styles.accountLinks}>
          {links
            .filter((link) => link.more)
            .map((link) => (
              <Link key={link.href} href={link.href} data-testid={`menu-${link.href.slice(1)}`}>
                <Icon name={link.icon} />
                <span>{link.label}</span>
              </Link>
            ))}
        </nav>
        <ThemeChoice initial={theme} />
        <button
          type="button"
          className={buttonClass({}, styles.signOut)}
          disabled={signingOut}
          onClick={() => {
            setSigningOut(true);
            signOutOfConsole();
          }}
          data-testid="sign-out"
        >
          {signingOut ? "Signing out…" : "Sign out"}
        </button>
      </div>
    </aside>
  );
}
