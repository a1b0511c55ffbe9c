/**
 * Settings every service process of an e2e run shares. All of them take jobs from the same
 * queue, so a webhook delivery may run in any worker: each must allow the loopback receiver.
 */
export const E2E_SERVICE_ENV = { WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1" };
