import { createHmac } from "node:crypto";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { compileErrors, validate } from "@readme/openapi-parser";
import { Ajv2020 } from "ajv/dist/2020.js";
import { beforeAll, describe, expect, it } from "vitest";
import { errorStatus } from "./errors";
import { eventExamples, maskedEventExamples } from "./examples";
import { buildOpenApi } from "./openapi";
import { operationErrors, operations } from "./operations";
import { agentEventTypes } from "./vocabulary";

// biome-ignore lint/suspicious/noExplicitAny: the test walks an untyped JSON document
type Json = Record<string, any>;
let doc: Json;
beforeAll(() => {
  doc = buildOpenApi();
});

/** A validator over the document's components, independent of zod. */
function componentValidator(document: Json) {
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema({ $id: "https://switchboard.local/openapi.json", ...document });
  return (schema: Json) =>
    ajv.compile({ $id: `https://switchboard.local/check/${Math.random()}`, ...rebase(schema) });
}
// biome-ignore lint/suspicious/noExplicitAny: the result is JSON of any shape
const rebase = (node: unknown): any =>
  Array.isArray(node)
    ? node.map(rebase)
    : node && typeof node === "object"
      ? Object.fromEntries(
          Object.entries(node).map(([key, value]) => [
            key,
            key === "$ref" && typeof value === "string" && value.startsWith("#/")
              ? `https://switchboard.local/openapi.json${value}`
              : rebase(value),
          ]),
        )
      : node;

// Validating the whole document (every schema compiled by Ajv) takes seconds on a busy 2-core machine.
describe("OpenAPI document", { timeout: 60_000 }, () => {
  it("passes an independent OpenAPI 3.1 validator with no errors or warnings", async () => {
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid ? "" : compileErrors(result)).toBe("");
    expect(result.warnings).toEqual([]);
    expect(doc.openapi).toBe("3.1.0");
  });

  it("covers every operation of the registry with its security and every error code it may answer", () => {
    for (const op of operations) {
      const operation = doc.paths[op.path]?.[op.method.toLowerCase()];
      expect(operation?.operationId, `${op.method} ${op.path}`).toBe(op.operationId);
      expect(operation.security).toEqual([
        { [op.surface === "agent" ? "agentToken" : "developerKey"]: [] },
      ]);
      expect(operation.responses[String(op.status)]).toBeDefined();
      for (const code of operationErrors(op)) {
        const answer = operation.responses[String(errorStatus[code])];
        expect(answer?.description, `${op.operationId} ${code}`).toContain(`\`${code}\``);
        expect(answer.content["application/json"].examples[code]).toBeDefined();
      }
    }
    expect(Object.keys(doc.components.securitySchemes)).toEqual(["agentToken", "developerKey"]);
  });

  it("takes an Idempotency-Key on every POST (one reusable parameter) and on nothing else", () => {
    expect(doc.components.parameters.IdempotencyKey).toMatchObject({
      name: "Idempotency-Key",
      in: "header",
      schema: { minLength: 1, maxLength: 255 },
    });
    for (const op of operations) {
      const entry = doc.paths[op.path][op.method.toLowerCase()];
      const keyed = (entry.parameters ?? []).some(
        (p: Json) => p.$ref === "#/components/parameters/IdempotencyKey",
      );
      expect(keyed, op.operationId).toBe(op.method === "POST");
      if (op.method !== "POST") continue;
      expect(entry.responses["422"].description).toContain("idempotency_key_reused");
      expect(entry.responses["409"].description).toContain("idempotency_key_in_use");
      expect(entry.responses["400"].description).toContain("invalid_idempotency_key");
      expect(entry.responses[String(op.status)].headers).toHaveProperty("Idempotent-Replayed");
    }
  });

  it("describes every event type as a component and as a signed webhook delivery", () => {
    for (const type of agentEventTypes) {
      const hook = doc.webhooks[type]?.post;
      expect(hook, type).toBeDefined();
      expect(hook.parameters.map((p: Json) => p.name)).toEqual([
        "X-Svc-Event-Id",
        "X-Svc-Event-Type",
        "X-Svc-Delivery-Attempt",
        "X-Svc-Signature",
      ]);
      const ref = hook.requestBody.content["application/json"].schema.$ref as string;
      expect(doc.components.schemas[ref.split("/").at(-1) as string]).toBeDefined();
    }
    expect(
      doc.components.schemas.AgentEvent.oneOf ?? doc.components.schemas.AgentEvent.anyOf,
    ).toHaveLength(agentEventTypes.length);
  });

  it("has only valid JSON Schema 2020-12 components (checked against the meta-schema by Ajv)", () => {
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    const invalid = Object.entries(doc.components.schemas as Json)
      .filter(([, schema]) => !ajv.validateSchema(rebase(schema)))
      .map(([id]) => `${id}: ${ajv.errorsText()}`);
    expect(invalid).toEqual([]);
    expect(ajv.validateSchema({ type: "objectx" })).toBe(false);
  });

  it("has examples that its own schemas accept (checked by a JSON Schema validator, not zod)", () => {
    const compile = componentValidator(doc);
    const failures: string[] = [];
    const check = (where: string, schema: Json, value: unknown) => {
      const validator = compile(schema);
      if (!validator(value)) failures.push(`${where}: ${JSON.stringify(validator.errors)}`);
    };
    for (const type of agentEventTypes) {
      const hook = doc.webhooks[type].post.requestBody.content["application/json"];
      for (const [name, example] of Object.entries(hook.examples as Json))
        check(`webhook ${type} ${name}`, hook.schema, example.value);
      check(
        `${type} payload`,
        { $ref: `#/components/schemas/${hook.schema.$ref.split("/").at(-1)}` },
        {
          id: "evt_1",
          seq: 1,
          type,
          ts: "2026-05-01T09:00:00.000Z",
          agentId: "agt_1",
          payload: eventExamples[type],
        },
      );
    }
    for (const [path, item] of Object.entries(doc.paths as Json))
      for (const [method, operation] of Object.entries(item as Json))
        for (const [status, answer] of Object.entries(operation.responses as Json)) {
          const json = answer.content?.["application/json"];
          if (json?.example !== undefined)
            check(`${method} ${path} ${status}`, json.schema, json.example);
          for (const [name, example] of Object.entries((json?.examples ?? {}) as Json))
            check(`${method} ${path} ${status} ${name}`, json.schema, example.value);
        }
    expect(failures).toEqual([]);
    expect(Object.keys(maskedEventExamples).length).toBeGreaterThan(0);
  });
});

describe("the webhook verification snippet", () => {
  it("verifies what the service signs, with either secret during a rotation, and refuses old or forged ones", async () => {
    const code = /```js\n([\s\S]*?)```/.exec(doc.info.description as string)?.[1] ?? "";
    const file = path.join(await mkdtemp(path.join(tmpdir(), "snippet-")), "verify.mjs");
    await writeFile(file, code);
    const { verifySignature } = await import(pathToFileURL(file).href);
    const body = JSON.stringify({ id: "evt_1", type: "contact.added" });
    const sign = (secret: string, t: number) =>
      createHmac("sha256", secret).update(`${t}.${body}`).digest("hex");
    const now = Math.floor(Date.now() / 1000);
    const header = `t=${now},v1=${sign("whsec_new", now)},v1=${sign("whsec_old", now)}`;
    expect(verifySignature(body, header, "whsec_new")).toBe(true);
    expect(verifySignature(Buffer.from(body), header, "whsec_old")).toBe(true);
    expect(verifySignature(body, header, "whsec_other")).toBe(false);
    expect(verifySignature(`${body} `, header, "whsec_new")).toBe(false);
    const old = now - 301;
    expect(verifySignature(body, `t=${old},v1=${sign("whsec_new", old)}`, "whsec_new")).toBe(false);
  });
});
