import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import SwaggerParser from "@apidevtools/swagger-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildOpenApi } from "./openapi";
import { operations } from "./operations";

/**
 * The two served documents, each through the tools people point at them: Redocly's recommended
 * ruleset (0 errors, 0 warnings) and swagger-parser's validation.
 */
const redocly = path.resolve(import.meta.dirname, "../../../node_modules/.bin/redocly");
const run = promisify(execFile);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "openapi-lint-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe.each(["agent", "dev"] as const)("the %s API's document", { timeout: 180_000 }, (api) => {
  const doc = buildOpenApi({ api });

  it("holds that API's operations only, and the webhooks with the Agent API", () => {
    const ids = Object.values(doc.paths as Record<string, Record<string, { operationId: string }>>)
      .flatMap((item) => Object.values(item).map((operation) => operation.operationId))
      .filter((id) => operations.some((op) => op.operationId === id));
    expect(ids.sort()).toEqual(
      operations
        .filter((op) => op.surface === api)
        .map((op) => op.operationId)
        .sort(),
    );
    expect("webhooks" in doc).toBe(api === "agent");
    const scheme = api === "agent" ? "agentToken" : "developerKey";
    const schemes = (doc.components as { securitySchemes: Record<string, { description: string }> })
      .securitySchemes;
    expect(Object.keys(schemes)).toEqual([scheme]);
    expect(schemes[scheme]?.description).toContain(
      api === "agent" ? "Bearer agent:<token>" : "Bearer dev:<key>",
    );
  });

  it("passes Redocly's recommended ruleset with no error and no warning", async () => {
    const file = path.join(dir, `${api}.json`);
    await writeFile(file, JSON.stringify(doc));
    const { stdout } = await run(
      redocly,
      ["lint", file, "--extends", "recommended", "--format", "json", "--max-problems", "1000"],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, REDOCLY_TELEMETRY: "off" } },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    const report = JSON.parse(stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string }[];
    };
    expect(report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });

  it("passes swagger-parser's validation", async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });
});
