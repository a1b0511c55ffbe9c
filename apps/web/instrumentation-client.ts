import { z } from "zod";

// Runs before the console's own code. Zod compiles validators with `new Function` when it may;
// the console's CSP allows no eval, and zod's probe for it would be reported as a violation on
// every page. Interpreted validation is plenty for forms.
z.config({ jitless: true });
