export * from "./client";
export { type MigrationStatus, migrationStatus } from "./migration-status";
export { describeError, isDatabaseUnavailable, safeError } from "./safe-error";
export * as schema from "./schema";
export { withDatabase } from "./url";
