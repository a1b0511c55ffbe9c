import { ops } from "@switchboard/contract";
import { routeTable } from "./route-table";

/**
 * What the SDK reads from the contract at run time, as plain data. In the monorepo this module
 * reads the registries themselves; the build (scripts/build.ts) replaces it with its exports as
 * literals, so the published SDK never loads zod and picks up new operations on its next build.
 */

/** Every operation of the registry, by operationId. */
export const routes = routeTable(ops);
/** Each error code's HTTP status (for the stream's close reasons and error frames). */
export { errorStatus } from "@switchboard/contract";
