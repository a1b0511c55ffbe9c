import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";

/**
 * Core's folders in layers, lowest first: a folder imports only from folders in lower layers,
 * never from its own layer or above, so every arrow between folders points down and no change
 * can tangle them into a cycle. The shared steps of every agent send (`sending`) sit below the
 * surfaces that send (actions, email, feed, messaging). Tests and the files at the top of core
 * (deps, config, errors, index…) are not part of the layering.
 */
const LAYERS: string[][] = [
  ["jobs", "net"], // the job queue's enqueueing; outbound requests to addresses we allow
  ["events"], // the event log, wake-ups, what an agent may see of an event
  ["limits"], // rate counters, leases, charges, storage quotas
  ["identity", "objects"], // users, agents, tokens; stored media
  ["calls", "consent", "updates", "voice"], // access checks, long-poll, speech
  ["records", "sending"], // the platform's skills; the one send sequence and its steps
  ["actions", "email", "feed"], // surfaces that send
  ["contacts", "messaging", "webhooks"],
  ["idempotency"], // Idempotency-Keys: answers kept for retries (some sealed like secrets)
  ["maintenance"], // sweeps that reach into everything
  ["scale"], // query plans at scale (tests only)
];

const coreSrc = import.meta.dirname;
const layerOf = new Map(LAYERS.flatMap((folders, layer) => folders.map((f) => [f, layer])));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry) && !/\.test\.tsx?$/.test(entry) && !/testing/.test(entry)
      ? [full]
      : [];
  });
}

const folders = readdirSync(coreSrc).filter((entry) =>
  statSync(path.join(coreSrc, entry)).isDirectory(),
);

it("places every folder of core in a layer", () => {
  expect(folders.filter((folder) => !layerOf.has(folder))).toEqual([]);
  expect([...layerOf.keys()].filter((folder) => !folders.includes(folder))).toEqual([]);
});

it("imports only from lower layers between core's folders", () => {
  const upward: string[] = [];
  for (const folder of folders) {
    for (const file of sourceFiles(path.join(coreSrc, folder))) {
      const source = readFileSync(file, "utf8");
      for (const [, spec] of source.matchAll(/from\s+["'](\.{1,2}\/[^"']+)["']/g)) {
        const target = path.relative(coreSrc, path.resolve(path.dirname(file), spec as string));
        const targetFolder = target.includes(path.sep) ? target.split(path.sep)[0] : null;
        if (!targetFolder || targetFolder === folder) continue;
        if ((layerOf.get(targetFolder) ?? Infinity) >= (layerOf.get(folder) ?? -1))
          upward.push(`${path.relative(coreSrc, file)} → ${target}`);
      }
    }
  }
  expect(upward).toEqual([]);
});
