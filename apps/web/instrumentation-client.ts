import { config } from "zod/v4/core";

// Runs before the console's own code. Zod compiles validators with `new Function` when it may;
// the console's CSP allows no eval, and zod's probe for it would be reported as a violation on
// every page. Interpreted validation is plenty for forms. Only zod's core config is imported:
// this file loads on every page, and `z` from "zod" would bring all of zod (31 KB gzip) with it.
config({ jitless: true });
