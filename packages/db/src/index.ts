export * from "./client";
export * as schema from "./schema";
export { withDatabase } from "./url";
