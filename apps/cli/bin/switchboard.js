#!/usr/bin/env node
// `switchboard` once linked (npm link -w @switchboard/cli): runs the TypeScript CLI through tsx.
import { register } from "tsx/esm/api";

register();
await import("../src/main.ts");
