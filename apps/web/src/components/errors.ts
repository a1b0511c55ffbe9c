/** What the console shows for a failed tRPC call: the message, and field issues by path. */
export interface ShownError {
  message: string;
  fields: Record<string, string>;
}

export function shownError(error: unknown): ShownError | null {
  if (!error) return null;
  const data = (error as { data?: { issues?: { path: string; message: string }[] } }).data;
  const fields: Record<string, string> = {};
  for (const issue of data?.issues ?? []) fields[issue.path] ??= issue.message;
  const message = (error as Error).message || "Something went wrong";
  return {
    message: data?.issues?.length ? "Please fix the fields marked below." : message,
    fields,
  };
}
