import type { TestProject } from "vitest/node";
import { startTestDatabaseServer } from "./testing";

/** Vitest global setup: one database server and migrated template for the whole run. */
export default async function setup(project: TestProject) {
  const server = await startTestDatabaseServer();
  project.provide("testDatabase", { adminUrl: server.adminUrl, template: server.template });
  return () => server.stop();
}
