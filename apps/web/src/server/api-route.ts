import "server-only";
import { randomUUID } from "node:crypto";
import {
  type AgentPrincipal,
  authenticateDeveloper,
  authorizeAgentRequest,
  type CoreDeps,
  CoreError,
  type DeveloperPrincipal,
  parseAuthorization,
  type RateState,
} from "@switchboard/core";
import type { z } from "zod";
import { getDeps } from "./deps";
import { errorResponse, toErrorResponse } from "./responses";

/** Request bodies above this are refused before parsing (a 10 MB voice note is ~13.4 MB of base64). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };
type NextHandler = (request: Request, context: RouteContext) => Promise<Response>;

interface RouteOptions<B extends z.ZodType | undefined, Q extends z.ZodType | undefined> {
  /** JSON body schema; the body must be `application/json`. */
  body?: B;
  /** When true an empty body is allowed and parsed as `{}`. */
  optionalBody?: boolean;
  /** Query string schema, applied to an object of the search parameters. */
  query?: Q;
}

type Input<S> = S extends z.ZodType ? z.output<S> : undefined;

interface HandlerArgs<P, B, Q> {
  principal: P;
  deps: CoreDeps;
  body: B;
  query: Q;
  params: Record<string, string>;
  request: Request;
}

interface Surface<P> {
  name: string;
  credential: "agent" | "dev";
  /** Auth and account state, the first two stages of the pipeline. */
  authenticate(deps: CoreDeps, secret: string): Promise<P>;
}

const agentSurface: Surface<AgentPrincipal & { rate: RateState }> = {
  name: "Agent API",
  credential: "agent",
  authenticate: authorizeAgentRequest,
};

const devSurface: Surface<DeveloperPrincipal> = {
  name: "Developer API",
  credential: "dev",
  authenticate: authenticateDeveloper,
};

/**
 * The request pipeline every API route shares: authenticate → account state → validate input →
 * core (the handler) → serialize, with every failure answered in the error envelope.
 */
function apiRoute<P>(surface: Surface<P>) {
  return <B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined>(
    options: RouteOptions<B, Q>,
    handler: (args: HandlerArgs<P, Input<B>, Input<Q>>) => Promise<Response>,
  ): NextHandler =>
    async (request, context) => {
      const requestId = randomUUID();
      let rate: RateState | undefined;
      try {
        const deps = getDeps();
        const principal = await surface.authenticate(deps, credentialSecret(surface, request));
        rate = (principal as { rate?: RateState }).rate;
        const query = options.query
          ? options.query.parse(Object.fromEntries(new URL(request.url).searchParams))
          : undefined;
        const body = options.body
          ? options.body.parse(await readJson(request, options.optionalBody ?? false))
          : undefined;
        const params = Object.fromEntries(
          Object.entries((await context.params) ?? {}).map(([k, v]) => [k, String(v)]),
        );
        const response = await handler({
          principal,
          deps,
          body: body as Input<B>,
          query: query as Input<Q>,
          params,
          request,
        });
        return finish(response, requestId, rate);
      } catch (error) {
        return finish(
          toErrorResponse(error, requestId),
          requestId,
          (error as CoreError).rate ?? rate,
        );
      }
    };
}

/** Every answer carries its request id and, once the caller is known, its rate-limit state. */
function finish(response: Response, requestId: string, rate: RateState | undefined): Response {
  response.headers.set("X-Request-Id", requestId);
  if (rate) {
    response.headers.set("RateLimit-Limit", String(rate.limit));
    response.headers.set("RateLimit-Remaining", String(rate.remaining));
    response.headers.set("RateLimit-Reset", String(rate.resetSeconds));
    response.headers.set("RateLimit-Policy", `${rate.limit};w=${rate.windowSeconds}`);
  }
  return response;
}

export const agentRoute = apiRoute(agentSurface);
export const devRoute = apiRoute(devSurface);

function credentialSecret(surface: Surface<unknown>, request: Request): string {
  const credential = parseAuthorization(request.headers.get("authorization"));
  if (credential.kind === surface.credential) return credential.secret;
  const expected = `Authorization: Bearer ${surface.credential}:<${surface.credential === "agent" ? "token" : "key"}>`;
  const why =
    credential.kind === "none"
      ? `Missing credentials; send ${expected}`
      : credential.kind === "other"
        ? `The ${surface.name} accepts only ${expected}`
        : `${credential.kind === "agent" ? "Agent tokens" : "Developer keys"} are not accepted on the ${surface.name}`;
  throw new CoreError("unauthorized", why);
}

async function readJson(request: Request, optional: boolean): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const text = await request.text();
  if (Buffer.byteLength(text) > MAX_BODY_BYTES) throw tooLarge();
  if (text.trim() === "") {
    if (optional) return {};
    throw new CoreError("validation_error", "A JSON body is required", {
      issues: [{ path: "", message: "body is required" }],
    });
  }
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/(.+\+)?json\s*(;|$)/i.test(type))
    throw new CoreError("validation_error", "Content-Type must be application/json", {
      issues: [{ path: "", message: "Content-Type must be application/json" }],
    });
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CoreError("validation_error", "The body is not valid JSON", {
      issues: [{ path: "", message: (error as Error).message }],
    });
  }
}

function tooLarge() {
  return new CoreError("payload_too_large", `The body is larger than ${MAX_BODY_BYTES} bytes`);
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];

/**
 * A route file's exports: the given handlers, and a 405 in the envelope (with `Allow`) for every
 * other method, so no method ever falls through to Next's empty-bodied default.
 */
export function methods(
  handlers: Partial<Record<Method, NextHandler>>,
): Record<Method, NextHandler> {
  const allow = Object.keys(handlers).join(", ");
  const notAllowed: NextHandler = async (request) =>
    errorResponse(
      "method_not_allowed",
      `${request.method} is not allowed here; use ${allow}`,
      {},
      { Allow: allow },
    );
  return Object.fromEntries(METHODS.map((m) => [m, handlers[m] ?? notAllowed])) as Record<
    Method,
    NextHandler
  >;
}

/** Every method of an unknown path: 404 in the envelope. */
export function notFoundRoutes(): Record<Method, NextHandler> {
  const handler: NextHandler = async (request) =>
    errorResponse(
      "not_found",
      `No such endpoint: ${request.method} ${new URL(request.url).pathname}`,
    );
  return Object.fromEntries(METHODS.map((m) => [m, handler])) as Record<Method, NextHandler>;
}
