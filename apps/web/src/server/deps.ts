import "server-only";
import { type CoreDeps, createDeps, loadConfig } from "@switchboard/core";

/**
 * The process's core deps: config parsed once and one connection pool, created on first use.
 * Kept on globalThis so dev-mode module reloads do not open new pools.
 */
const holder = globalThis as typeof globalThis & { __switchboardDeps?: CoreDeps };

export function getDeps(): CoreDeps {
  holder.__switchboardDeps ??= createDeps(loadConfig()).deps;
  return holder.__switchboardDeps;
}

/** Tests hand the pipeline deps over their own database and clock. */
export function provideDeps(deps: CoreDeps): void {
  holder.__switchboardDeps = deps;
}
