/**
 * What the console shows for a failed tRPC call: issues whose path names a field on the form go
 * next to that field; everything else goes in the message above the form. Messages are
 * sentences (capital first, full stop last) and say what to do next where there is something.
 */
export interface ShownError {
  message: string;
  fields: Record<string, string>;
}

interface ErrorData {
  code?: string;
  issues?: { path: string; message: string }[] | null;
  retryAfterSeconds?: number;
}

/** "must not be empty" → "Must not be empty."; a sentence is left as it is. */
export function sentence(text: string): string {
  const trimmed = text.trim();
  if (!trimmed) return trimmed;
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?…]$/.test(capital) ? capital : `${capital}.`;
}

/** "change.displayName" → "Display name", as a person names the field. */
function fieldName(path: string): string {
  const last = path.split(".").at(-1) ?? path;
  const words = last.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What to do next, for the codes where the person can do something about it. */
const nextStep: Partial<Record<string, string>> = {
  internal_error: "Try again in a moment.",
  unauthorized: "Sign in again to continue.",
  account_suspended: "Contact the operator of this Switchboard.",
  not_found: "It may have been removed; go back and try again.",
};

export function shownError(error: unknown, formFields: readonly string[] = []): ShownError | null {
  if (!error) return null;
  const data = (error as { data?: ErrorData | null }).data ?? undefined;
  const fields: Record<string, string> = {};
  const elsewhere: string[] = [];
  for (const issue of data?.issues ?? []) {
    if (formFields.includes(issue.path)) fields[issue.path] ??= issue.message;
    else
      elsewhere.push(
        sentence(issue.path ? `${fieldName(issue.path)} ${issue.message}` : issue.message),
      );
  }
  const message =
    elsewhere.length > 0
      ? elsewhere.join(" ")
      : Object.keys(fields).length > 0
        ? "Please fix the fields marked below."
        : describe(error, data);
  return { message, fields };
}

function describe(error: unknown, data: ErrorData | undefined): string {
  // No answer at all: the request never reached the server, or its answer never came back.
  if (!data?.code) return "Couldn't reach Switchboard. Check your connection and try again.";
  if (data.code === "internal_error")
    return "Something went wrong on our side. Try again in a moment.";
  const base = sentence((error as Error).message || "Something went wrong");
  if (data.code === "rate_limited" || data.code.endsWith("_rate_limited"))
    return data.retryAfterSeconds
      ? `${base} Try again in ${data.retryAfterSeconds} s.`
      : `${base} Try again in a minute.`;
  const next = nextStep[data.code];
  return next && !base.includes(next) ? `${base} ${next}` : base;
}
