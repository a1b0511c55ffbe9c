import { startService } from "@switchboard/cli/service";
import { createTestDatabase, dropDatabase } from "@switchboard/db/testing";
import { servicePort } from "./ports";
import { E2E_SERVICE_ENV } from "./service-env";
import { test } from "./test";

/**
 * A service of its own, on a database of its own, for specs whose settings differ from the
 * shared run's. Call it at the top of a file or a describe block: it starts the service before
 * the scope's first test and stops it (and drops its database) after the last. Returns the
 * service's base URL.
 */
export function ownService(
  spec: Parameters<typeof servicePort>[0],
  env: Record<string, string>,
): string {
  const port = servicePort(spec);
  const adminUrl = process.env.E2E_DATABASE_ADMIN_URL as string;
  let stop: (() => Promise<void>) | undefined;
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    const database = await createTestDatabase({
      adminUrl,
      template: process.env.E2E_DATABASE_TEMPLATE as string,
    });
    stop = () => dropDatabase(adminUrl, database.name);
    const service = await startService({
      databaseUrl: database.url,
      port,
      wsPort: port + 1,
      env: { ...E2E_SERVICE_ENV, ...env },
      output: "ignore",
    });
    stop = async () => {
      await service.stop();
      await dropDatabase(adminUrl, database.name);
    };
  });
  test.afterAll(async () => {
    await stop?.();
  });
  return `http://127.0.0.1:${port}`;
}
