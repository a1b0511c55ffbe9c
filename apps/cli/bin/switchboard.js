#!/usr/bin/env node
// `switchboard` (`npx switchboard`, `npm run -s cli --`): the CLI built ahead of time into dist/
// (decision 0065), rebuilt first when missing or when a source file changed since it was built,
// so no caller ever runs an outdated bundle and none needs tsx.
import { bundleIsFresh, entry } from "../scripts/fresh.mjs";

if (!bundleIsFresh()) await (await import("../scripts/build.mjs")).buildCli();
await import(entry.href);
