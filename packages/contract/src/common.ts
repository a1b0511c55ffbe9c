import { z } from "zod";

/** A user's public number: three groups of three digits. */
export const Num = z.string().regex(/^\d{3}-\d{3}-\d{3}$/, "must be a number like 123-456-789");
export type Num = z.infer<typeof Num>;

/** An agent's service number. */
export const AgentNum = z
  .string()
  .regex(/^800-\d{3}-\d{3}$/, "must be an agent number like 800-123-456");

export const DateTime = z.iso.datetime({ offset: true });

/** An https URL without credentials, at most 2000 characters. */
export const HttpsUrl = z
  .string()
  .max(2000, "must be at most 2000 characters")
  .superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: "custom", message: "must be a valid URL" });
      return;
    }
    if (url.protocol !== "https:")
      ctx.addIssue({ code: "custom", message: "must be an https URL" });
    if (url.username || url.password)
      ctx.addIssue({ code: "custom", message: "must not contain credentials" });
  });

/** Text on one line: no line breaks or other control characters. */
export const oneLine = (value: string) => !/[\u0000-\u001f\u007f]/.test(value);

/** A non-negative whole number in a query string (no blanks, signs, exponents or fractions). */
export const QueryInt = z
  .string()
  .regex(/^\d{1,15}$/, "must be a whole number")
  .transform(Number);

/**
 * A page of a list the agent reads: at most `limit` items (1-100, default 50), and `before`, an
 * id from the list (the last item of the previous page, in the list's order) to page on from.
 * Every list the Agent API answers is bounded by it; `hasMore` in the answer says more follow.
 */
export const pageQuery = (idOf: string) => {
  const Id = z.string().min(1, `must be ${idOf}`).max(100, `must be ${idOf}`);
  return z.strictObject({
    limit: QueryInt.pipe(z.number().min(1, "must be 1-100").max(100, "must be 1-100"))
      .optional()
      .default(50),
    before: Id.optional(),
  });
};
export type PageQuery = z.infer<ReturnType<typeof pageQuery>>;

/** A non-negative decimal number in a query string. */
export const QueryNumber = z
  .string()
  .regex(/^\d{1,9}(\.\d{1,6})?$/, "must be a number of seconds")
  .transform(Number);
