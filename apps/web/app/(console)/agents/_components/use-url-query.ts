"use client";

import { usePathname, useSearchParams } from "next/navigation";
import { useState } from "react";

/**
 * A view's settings (filters, page, range) kept in the page's URL query, so a reload, the Back
 * button or a shared link shows the same view. `change` sets (or, with null, drops) some of them
 * as a new history entry; Next's router follows the History API, so the page re-renders with
 * the new query without a server round trip.
 */
export function useUrlQuery() {
  const routed = useSearchParams();
  const pathname = usePathname();
  // The router takes a pushed URL in as a transition, a moment later; until it has, the view
  // shows what was asked for, so a select or radio never springs back to the old value. Any
  // navigation (that one, or Back) ends the wait.
  const [asked, setAsked] = useState<URLSearchParams | null>(null);
  const [seen, setSeen] = useState(routed);
  if (seen !== routed) {
    setSeen(routed);
    setAsked(null);
  }
  const params = asked ?? routed;
  const change = (changes: Record<string, string | null>) => {
    const next = new URLSearchParams(params);
    for (const [name, value] of Object.entries(changes))
      if (value === null) next.delete(name);
      else next.set(name, value);
    setAsked(next);
    const query = next.toString();
    window.history.pushState(null, "", query ? `${pathname}?${query}` : pathname);
  };
  return { params, change };
}
