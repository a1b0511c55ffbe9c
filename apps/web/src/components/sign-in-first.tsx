"use client";

import { redirect, usePathname, useSearchParams } from "next/navigation";
import { signInPath } from "./return-to";

/**
 * A signed-out visitor of a console page goes to sign in, which brings them back here after.
 * Rendered by the console layout (a layout does not know the path; a client component does), and
 * the redirect happens while the page renders on the server.
 */
export function SignInFirst(): never {
  const path = usePathname();
  const query = useSearchParams().toString();
  redirect(signInPath(query ? `${path}?${query}` : path));
}
