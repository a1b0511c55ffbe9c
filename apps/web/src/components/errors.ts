/**
 * What the console shows for a failed tRPC call: issues whose path names a field on the form go
 * next to that field; everything else goes in the message above the form.
 */
export interface ShownError {
  message: string;
  fields: Record<string, string>;
}

interface ErrorData {
  code?: string;
  issues?: { path: string; message: string }[] | null;
}

export function shownError(error: unknown, formFields: readonly string[] = []): ShownError | null {
  if (!error) return null;
  const data = (error as { data?: ErrorData | null }).data ?? undefined;
  const fields: Record<string, string> = {};
  const elsewhere: string[] = [];
  for (const issue of data?.issues ?? []) {
    if (formFields.includes(issue.path)) fields[issue.path] ??= issue.message;
    else elsewhere.push(issue.path ? `${issue.path}: ${issue.message}` : issue.message);
  }
  const base = (error as Error).message || "Something went wrong";
  const message =
    elsewhere.length > 0
      ? elsewhere.join("; ")
      : Object.keys(fields).length > 0
        ? "Please fix the fields marked below."
        : base;
  return { message, fields };
}
