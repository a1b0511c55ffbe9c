/**
 * The console's colour theme: the system's scheme, or one the person chose for this browser.
 * Kept in a cookie (not the account: a phone and a desk screen may want different ones) that
 * the root layout reads, so the server's HTML already carries it and no page flashes light.
 */
export const themes = ["system", "light", "dark"] as const;
export type Theme = (typeof themes)[number];

export const themeCookie = "theme";

/** The theme a cookie's value names; anything else is the system's. */
export function themeOf(value: string | undefined): Theme {
  return value === "light" || value === "dark" ? value : "system";
}

/** The theme a request's cookies (Next's `cookies()`) name. */
export function requestTheme(cookies: { get(name: string): { value: string } | undefined }): Theme {
  return themeOf(cookies.get(themeCookie)?.value);
}

/** What <html data-theme> says: nothing when the system's scheme decides. */
export function themeAttribute(theme: Theme): "light" | "dark" | undefined {
  return theme === "system" ? undefined : theme;
}
