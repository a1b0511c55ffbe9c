/** A page's URL query as Next hands it to a server page (`searchParams`). */
export type PageQuery = Record<string, string | string[] | undefined>;

/**
 * A server page's URL query as the browser's `URLSearchParams`, so the page reads a view (filters,
 * page, range) from it with the same function its client components use (`useUrlQuery`).
 */
export function urlQueryFrom(query: PageQuery): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
      params.append(name, one);
  return params;
}
