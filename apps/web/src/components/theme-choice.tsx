"use client";

import { useState } from "react";
import styles from "./console-nav.module.css";
import { type Theme, themeAttribute, themeCookie, themeOf, themes } from "./theme";

const labels: Record<Theme, string> = { system: "System", light: "Light", dark: "Dark" };

/** The account menu's theme picker: takes effect at once and is kept for this browser. */
export function ThemeChoice({ initial }: { initial: Theme }) {
  const [theme, setTheme] = useState(initial);
  return (
    <label className={styles.theme}>
      Theme
      <select
        value={theme}
        onChange={(event) => {
          const next = themeOf(event.target.value);
          setTheme(next);
          const attribute = themeAttribute(next);
          if (attribute) document.documentElement.dataset.theme = attribute;
          else delete document.documentElement.dataset.theme;
          // A year for a choice; the system's scheme needs no cookie.
          // biome-ignore lint/suspicious/noDocumentCookie: one plain cookie, in every browser (Cookie Store is not).
          document.cookie = attribute
            ? `${themeCookie}=${attribute}; path=/; max-age=31536000; samesite=lax`
            : `${themeCookie}=; path=/; max-age=0; samesite=lax`;
        }}
        data-testid="theme-choice"
      >
        {themes.map((option) => (
          <option key={option} value={option}>
            {labels[option]}
          </option>
        ))}
      </select>
    </label>
  );
}
