import { readFileSync, statSync } from "node:fs";

/** The built CLI (scripts/build.mjs): its entry, and the list of what it was built from. */
export const distDir = new URL("../dist/", import.meta.url);
export const entry = new URL("switchboard.js", distDir);
export const inputsFile = new URL("inputs.json", distDir);

/**
 * True when the built CLI exists and every source file it was built from still has the mtime it
 * had then (decision 0065). Equal, not older than the build: a bundle restored from a cache or
 * copied from another checkout is rebuilt too. About one stat per bundled file: a millisecond or two.
 */
export function bundleIsFresh(inputs = inputsFile) {
  let built;
  try {
    built = JSON.parse(readFileSync(inputs, "utf8"));
  } catch {
    return false;
  }
  for (const [file, mtimeMs] of Object.entries(built.inputs)) {
    try {
      if (statSync(file).mtimeMs !== mtimeMs) return false;
    } catch {
      return false;
    }
  }
  return true;
}
