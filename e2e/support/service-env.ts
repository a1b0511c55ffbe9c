import { TEST_KEYS } from "@switchboard/core/testing";
/**
 * Settings every service process of an e2e run shares. All of them take jobs from the same
 * queue, so a webhook delivery may run in any worker: each must allow the loopback receiver.
 * Every spec signs people up and in from this one machine, so the per-network limits (tested
 * with their own service in api/signin-limits.spec.ts) are out of the way.
 */
export const E2E_SERVICE_ENV = {
  // The service never makes its own keys (decision 0063): the run passes them, and fixtures
  // that seal or open webhook secrets use the same (support/fixtures.ts).
  ...TEST_KEYS,
  WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1",
  // Agents' media servers in the specs are local too (support/media-server.ts).
  MEDIA_ALLOW_INSECURE_HOSTS: "127.0.0.1",
  LIMIT_SIGNUPS_PER_IP: "100000",
  LIMIT_SIGNIN_ATTEMPTS_PER_IP: "100000",
};
