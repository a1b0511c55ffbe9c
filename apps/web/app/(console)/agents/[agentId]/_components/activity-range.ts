/** The time ranges the owner can pick for the agent's charts, in days; the URL keeps the pick (`?range=7`). */
export const ranges = [7, 30, 90] as const;
export type Range = (typeof ranges)[number];
export const DEFAULT_RANGE: Range = 30;

/** The range a URL asks for: one of `ranges`, else the default (the server page reads it too). */
export function rangeFrom(params: URLSearchParams): Range {
  return ranges.find((days) => String(days) === params.get("range")) ?? DEFAULT_RANGE;
}
