// Types of fresh.mjs (plain JavaScript so that bin/switchboard.js runs without tsx), for tests.
export const distDir: URL;
export const entry: URL;
export const inputsFile: URL;
export function bundleIsFresh(inputs?: URL | string): boolean;
