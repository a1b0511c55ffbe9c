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

/** A non-negative decimal number in a query string. */
export const QueryNumber = z
  .string()
  .regex(/^\d{1,9}(\.\d{1,6})?$/, "must be a number of seconds")
  .transform(Number);
