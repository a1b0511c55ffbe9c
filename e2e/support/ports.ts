/**
 * Specs that start services of their own take their ports from here, so no two of them (they
 * run in parallel workers) ever share one. Each entry is the first of the ports a spec uses;
 * ports are E2E_PORT + offset.
 */
const offsets = {
  limits: 10, // two services: +10 … +13
  launcher: 20, // +20, +21
  signinLimits: 30, // +30, +31
  multiProcess: 40, // +40, +41
  shutdown: 50, // +50, +51
  chaos: 60, // +60 … +63
  consoleEdge: 70, // +70, +71
} as const;

export function servicePort(spec: keyof typeof offsets): number {
  return Number(process.env.E2E_PORT) + offsets[spec];
}
