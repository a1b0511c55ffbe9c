import type { HttpMethod, OperationDef } from "@switchboard/contract";

/**
 * What the client needs at run time to call an operation: the registry entry without its zod
 * schemas (the built SDK carries this table as plain data, so it never loads zod).
 */
export interface Route {
  method: HttpMethod;
  /** Relative to the base URL (which ends in `/api`), with `{name}` path parameters. */
  path: string;
  surface: "agent" | "dev";
  /** Path parameter names, in order. */
  params: string[];
  /** Query parameter names; the input's other keys (not path, not query) form the body. */
  query: string[];
  body: boolean;
  binary: boolean;
}

/** The route table of a registry: one plain entry per operationId. */
export function routeTable(ops: Record<string, OperationDef>): Record<string, Route> {
  return Object.fromEntries(
    Object.entries(ops).map(([id, op]) => [
      id,
      {
        method: op.method,
        path: op.path,
        surface: op.surface,
        params: [...op.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string),
        query: op.query ? shapeKeys(id, op.query) : [],
        body: op.body !== undefined,
        binary: "binary" in op.response,
      },
    ]),
  );
}

function shapeKeys(id: string, schema: unknown): string[] {
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  // A query is always an object of named parameters; anything else needs the SDK to learn it.
  if (!shape) throw new Error(`${id}: the SDK needs an object schema for the query`);
  return Object.keys(shape);
}
