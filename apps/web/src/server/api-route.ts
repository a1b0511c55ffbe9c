import "server-only";
import { randomUUID } from "node:crypto";
import type {
  ApiSurface,
  Operation,
  OperationDef,
  OperationResult,
  PathParamNames,
} from "@switchboard/contract";
import { IDEMPOTENCY_KEY_HEADER } from "@switchboard/contract";
import {
  type AdmissionRead,
  admissionInSend,
  authenticateDeveloper,
  authorizeAgentRequest,
  type CoreDeps,
  CoreError,
  type DeveloperPrincipal,
  JsonText,
  knownAgentToken,
  logRequest,
  metrics,
  parseAuthorization,
  type RateState,
  type SendAdmission,
  withLogContext,
} from "@switchboard/core";
import type { z } from "zod";
import { clientFamily } from "./client-network";
import { getDeps } from "./deps";
import { idempotent } from "./idempotent-request";
import { callerKey, readableBeforeAdmission, readBodyText } from "./read-body";
import { errorResponse, json, toErrorResponse } from "./responses";
import { assertStorableInput, storableQuery } from "./storable-input";

type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };
type NextHandler = (request: Request, context: RouteContext) => Promise<Response>;

interface RouteOptions<B extends z.ZodType | undefined, Q extends z.ZodType | undefined> {
  /** JSON body schema; the body must be `application/json`. */
  body?: B;
  /** When true an empty body is allowed and parsed as `{}`. */
  optionalBody?: boolean;
  /** Query string schema, applied to an object of the search parameters. */
  query?: Q;
  /** What the request log calls the route (the registry's operation id). */
  name?: string;
  /** The success status, stored with an `Idempotency-Key`'s answer (the registry's). */
  status?: number;
  /** What the route reads within its admission statement (Agent API), from the raw URL. */
  admission?: (url: URL) => AdmissionRead;
  /**
   * The route's send may let its call in (Agent API, `POST /messages`): a caller this process
   * let in before is admitted by the send's one statement (decision 0083).
   */
  admitInSend?: boolean;
}

type Input<S> = S extends z.ZodType ? z.output<S> : undefined;

interface HandlerArgs<P, B, Q> {
  principal: P;
  deps: CoreDeps;
  body: B;
  query: Q;
  params: Record<string, string>;
  request: Request;
  /**
   * The success answer of serialised JSON, built with every header the pipeline adds (request
   * id, rate limit) at once rather than set one by one on a built response (issue 41).
   */
  respond(text: string, status: number, value?: unknown): Response;
}

interface Surface<P> {
  name: string;
  credential: ApiSurface;
  /** Auth and account state, the first two stages of the pipeline. */
  authenticate(
    deps: CoreDeps,
    secret: string,
    client: { family: "ipv4" | "ipv6" | null },
    read: AdmissionRead,
  ): Promise<P>;
  /** Who the request log names: the agent, or the developer key's user. */
  idOf(principal: P): string;
  /** Whose share of the body budget the request's body counts against (`callerKey`). */
  callerOf(principal: P): string;
  /** Whose `Idempotency-Key`s a request's are: the agent's, or the developer key's. */
  keyOwnerOf(principal: P): string;
  /** A call's admission to be made by its send, for a caller let in before (`AdmissionInSend`). */
  admitInSend?(
    deps: CoreDeps,
    secret: string,
    client: { family: "ipv4" | "ipv6" | null },
  ): AdmitWithin<P> | null;
}

const agentSurface: Surface<Awaited<ReturnType<typeof authorizeAgentRequest>>> = {
  name: "Agent API",
  credential: "agent",
  authenticate: authorizeAgentRequest,
  admitInSend: (deps, secret, client) => {
    const known = knownAgentToken(secret);
    return known ? admissionInSend(deps, known, client) : null;
  },
  idOf: (principal) => principal.agentId,
  callerOf: (principal) => callerKey({ agentId: principal.agentId }),
  keyOwnerOf: (principal) => principal.agentId,
};

const devSurface: Surface<DeveloperPrincipal> = {
  name: "Developer API",
  credential: "dev",
  authenticate: authenticateDeveloper,
  idOf: (principal) => principal.userId,
  callerOf: (principal) => callerKey({ userId: principal.userId }),
  keyOwnerOf: (principal) => principal.keyId,
};

/**
 * How a call is let in (authenticate → account state → request limit), when its caller already
 * did that for it: the MCP endpoint authenticates its POST once and hands the result to the tool
 * call, so the call does not look its token up a second time.
 */
export type Admit<P> = () => Promise<P>;

/**
 * A call made inside this process (an MCP tool call) to a route, already let in: what the
 * pipeline reads of a request, with no `Request` built unless the handler asks for one.
 */
export interface InProcessCall {
  url: URL;
  method: string;
  /** What the request log, the client network and an `Idempotency-Key` read. */
  headers: Headers;
  params: Record<string, string>;
  /** The JSON body, read whole with the POST that carried the call. */
  body?: string;
  /** The caller's, for a call that waits (a long-poll ends when its caller goes away). */
  signal?: AbortSignal;
}

/**
 * A call's admission to be made by its send (`AdmissionInSend`), for a caller let in before:
 * the principal it expects, and where the call stands once the send's statement let it in.
 */
export type AdmitWithin<P> = SendAdmission & { principal: P; rate: RateState | undefined };

/** The pipeline of one route: as Next calls it, and for a caller that already let it in. */
type PipelineHandler<P> = NextHandler & {
  /**
   * The call, let in by `admit`; or, for a route whose send may let its call in, by that send
   * when `within` is given (`admit` only when it cannot).
   */
  admitted(call: InProcessCall, admit: Admit<P>, within?: Within<P>): Promise<CallAnswer>;
};

/** For an in-process call, its send's admission, made only for a route whose send may use it. */
export type Within<P> = () => AdmitWithin<P> | undefined;

/**
 * An in-process call's answer: a JSON success as the route serialised it (no `Response` is
 * built for it: one with a body cost ~15 µs, a tenth of an MCP call's own work), or the
 * `Response` of anything else (a refusal, bytes).
 */
export type CallAnswer = Response | JsonAnswer;
export interface JsonAnswer {
  status: number;
  json: AnsweredJson;
}

/** What the pipeline reads of a call, from a `Request` or an in-process call alike. */
interface Incoming {
  url: URL;
  method: string;
  headers: Headers;
  params(): Promise<Record<string, string | string[] | undefined>>;
  /** The body as text, read under the admitted caller's share of the body budget (once). */
  text(caller: string): Promise<string>;
  /** The call as a `Request`, for a handler that reads one. */
  request(): Request;
  /** Made in this process (an MCP tool call): its JSON answer needs no body (`CallAnswer`). */
  inProcess?: true;
}

function fromRequest(request: Request, context: RouteContext): Incoming {
  // Read once: a call its send was to let in reads it again the plain way when it could not.
  let text: Promise<string> | undefined;
  return {
    url: new URL(request.url),
    method: request.method,
    headers: request.headers,
    params: async () => (await context.params) ?? {},
    text: (caller) => {
      text ??= readBodyText(request, { caller });
      return text;
    },
    request: () => request,
  };
}

/**
 * An in-process call as the pipeline reads it. Its body was read (and counted) with the POST
 * that carried it; a `Request` is made only for a handler that asks (a long-poll's signal, a
 * byte range): building one, with its body as a stream, cost an MCP tool call ~30-60 µs.
 */
function fromCall(call: InProcessCall): Incoming {
  let request: Request | undefined;
  return {
    url: call.url,
    method: call.method,
    headers: call.headers,
    inProcess: true,
    params: async () => call.params,
    text: async () => call.body ?? "",
    request: () => {
      request ??= new Request(call.url, {
        method: call.method,
        headers: call.headers,
        ...(call.signal && { signal: call.signal }),
        ...(call.body !== undefined && { body: call.body }),
      });
      return request;
    },
  };
}

/**
 * The request pipeline every API route shares: authenticate → account state → validate input →
 * core (the handler) → serialize, with every failure answered in the error envelope.
 */
function apiRoute<P>(surface: Surface<P>) {
  return <B extends z.ZodType | undefined = undefined, Q extends z.ZodType | undefined = undefined>(
    options: RouteOptions<B, Q>,
    handler: (args: HandlerArgs<P, Input<B>, Input<Q>>) => Promise<Response>,
  ): PipelineHandler<P> => {
    const run = (incoming: Incoming, admit?: Admit<P>, given?: Within<P>) => {
      const requestId = randomUUID();
      return withLogContext({ requestId }, async () => {
        const started = performance.now();
        let rate: RateState | undefined;
        let principalId: string | undefined;
        let response: Response;
        try {
          const deps = getDeps();
          const { url } = incoming;
          // The call as the handler makes it, once its caller is known (or, let in by its send,
          // expected: `within`).
          const handle = async (
            principal: P,
            deps: CoreDeps,
            rateOf: () => RateState | undefined,
          ) => {
            const rawQuery = storableQuery(url);
            const query = options.query ? options.query.parse(rawQuery) : undefined;
            const raw = options.body
              ? await readJson(incoming, surface.callerOf(principal), options.optionalBody ?? false)
              : undefined;
            const body = options.body ? options.body.parse(raw) : undefined;
            const params = Object.fromEntries(
              Object.entries(await incoming.params()).map(([k, v]) => [k, String(v)]),
            );
            assertStorableInput(params);
            const keyed = {
              deps,
              ownerId: surface.keyOwnerOf(principal),
              body: raw,
              successStatus: options.status ?? 200,
            };
            return idempotent(incoming, keyed, (deps) =>
              handler({
                principal,
                deps,
                body: body as Input<B>,
                query: query as Input<Q>,
                params,
                get request() {
                  return incoming.request();
                },
                respond: (text, status, value) =>
                  answer(
                    value === undefined ? { text } : { text, value },
                    status,
                    requestId,
                    rateOf(),
                    // A keyed call's answer is stored from its body.
                    incoming.inProcess && !incoming.headers.has(IDEMPOTENCY_KEY_HEADER),
                  ),
              }),
            );
          };
          const secret = admit ? "" : credentialSecret(surface, incoming.headers);
          const client = { family: clientFamily(incoming.headers, deps.config.TRUSTED_PROXIES) };
          // A send that lets its own call in (decision 0083): anything refused or not sent
          // before its statement committed changed nothing, and the call is made the plain way.
          const withinSend = () => {
            if (!options.admitInSend || incoming.headers.has(IDEMPOTENCY_KEY_HEADER)) return;
            if (admit) return given?.();
            // Its body is read before it is let in: no more than a refused caller's may be.
            if (readableBeforeAdmission(incoming.headers))
              return surface.admitInSend?.(deps, secret, client) ?? undefined;
          };
          const within = withinSend();
          let sent: Response | undefined;
          if (within) {
            try {
              principalId = surface.idOf(within.principal);
              const admitted = { ...deps, admitInSend: within };
              sent = await handle(within.principal, admitted, () => within.rate);
            } catch (error) {
              if (within.rate) throw error; // its statement committed: the outcome stands
              principalId = undefined;
            }
            rate = within.rate;
            if (sent && !rate)
              throw new Error("a send that was to let its call in answered without");
          }
          if (sent) response = sent;
          else {
            const principal = admit
              ? await admit()
              : await surface.authenticate(deps, secret, client, options.admission?.(url) ?? {});
            principalId = surface.idOf(principal);
            rate = (principal as { rate?: RateState }).rate;
            const admittedRate = rate;
            response = await handle(principal, deps, () => admittedRate);
          }
        } catch (error) {
          response = toErrorResponse(error, requestId);
          rate = (error as CoreError).rate ?? rate;
          metrics.refusals.inc({
            code: error instanceof CoreError ? error.code : "internal_error",
          });
        }
        const route = options.name ?? "unbound";
        const seconds = (performance.now() - started) / 1000;
        metrics.requestSeconds.observe(
          { surface: surface.credential, route, status: response.status },
          seconds,
        );
        // One line per request: ids, status and time only (never the token, query or body).
        logRequest({
          route,
          method: incoming.method,
          [surface.credential === "agent" ? "agentId" : "userId"]: principalId,
          status: response.status,
          ms: Math.round(seconds * 10_000) / 10,
        });
        return finish(response, requestId, rate);
      });
    };
    return Object.assign(
      (request: Request, context: RouteContext) => run(fromRequest(request, context)),
      {
        admitted: async (call: InProcessCall, admit: Admit<P>, within?: Within<P>) => {
          const response = await run(fromCall(call), admit, within);
          const json = answered.get(response);
          return json ? { status: response.status, json } : response;
        },
      },
    );
  };
}

/** An answer's JSON: its text, and the value it was serialised from when the route had one. */
export interface AnsweredJson {
  text: string;
  value?: unknown;
}

/**
 * Responses `answer` built, with their JSON: `finish` leaves their headers be, and an in-process
 * call answers the JSON from here (`CallAnswer`) rather than from the body.
 */
const answered = new WeakMap<Response, AnsweredJson>();

/**
 * A JSON success answer with `json()`'s headers and `finish`'s, in one construction; for an
 * in-process call (`bodiless`), only its status, the JSON kept beside it in `answered`.
 */
function answer(
  json: AnsweredJson,
  status: number,
  requestId: string,
  rate: RateState | undefined,
  bodiless = false,
) {
  if (bodiless) {
    const response = new Response(null, { status });
    answered.set(response, json);
    return response;
  }
  const headers: [string, string][] = [
    ["content-type", "application/json"],
    ["cache-control", "no-store"],
    ["x-request-id", requestId],
  ];
  if (rate)
    headers.push(
      ["ratelimit-limit", String(rate.limit)],
      ["ratelimit-remaining", String(rate.remaining)],
      ["ratelimit-reset", String(rate.resetSeconds)],
      ["ratelimit-policy", `${rate.limit};w=${rate.windowSeconds}`],
    );
  const response = new Response(json.text, { status, headers });
  answered.set(response, json);
  return response;
}

/** Every answer carries its request id and, once the caller is known, its rate-limit state. */
function finish(response: Response, requestId: string, rate: RateState | undefined): Response {
  if (answered.has(response)) return response;
  response.headers.set("X-Request-Id", requestId);
  if (rate) {
    response.headers.set("RateLimit-Limit", String(rate.limit));
    response.headers.set("RateLimit-Remaining", String(rate.remaining));
    response.headers.set("RateLimit-Reset", String(rate.resetSeconds));
    response.headers.set("RateLimit-Policy", `${rate.limit};w=${rate.windowSeconds}`);
  }
  return response;
}

/** A route handler bound to its registry entry; `routes()` files it under the entry's method. */
export type BoundRoute<P = unknown> = PipelineHandler<P> & { operation: Operation };

interface OperationArgs<P, O extends OperationDef> {
  principal: P;
  deps: CoreDeps;
  body: Input<O["body"]>;
  query: Input<O["query"]>;
  params: Record<PathParamNames<O["path"]>, string>;
  request: Request;
}

/**
 * A surface's route wrapper. Given a registry entry (the way route files use it), the entry
 * decides the input schemas, the path parameters and the success status, and the handler returns
 * the entry's response type (bytes as a `Response`). Given plain options, the handler answers a
 * `Response` itself (for tests of the pipeline).
 */
function surfaceRoute<P>(surface: Surface<P>) {
  const route = apiRoute(surface);
  function bound<O extends Operation>(
    op: O,
    handler: (
      args: OperationArgs<P, O>,
    ) => Promise<OperationResult<O> | JsonText<OperationResult<O>>>,
    extra?: Pick<RouteOptions<undefined, undefined>, "admission" | "admitInSend">,
  ): BoundRoute<P>;
  function bound<
    B extends z.ZodType | undefined = undefined,
    Q extends z.ZodType | undefined = undefined,
  >(
    options: RouteOptions<B, Q>,
    handler: (args: HandlerArgs<P, Input<B>, Input<Q>>) => Promise<Response>,
  ): NextHandler;
  function bound(
    target: Operation | RouteOptions<z.ZodType | undefined, z.ZodType | undefined>,
    handler: (args: HandlerArgs<P, unknown, unknown>) => Promise<unknown>,
    extra: Pick<RouteOptions<undefined, undefined>, "admission" | "admitInSend"> = {},
  ): NextHandler {
    const op = "operationId" in target ? target : undefined;
    if (op && op.surface !== surface.credential)
      throw new Error(`${op.operationId} belongs to the ${op.surface} surface`);
    const options = op
      ? {
          body: op.body,
          query: op.query,
          optionalBody: op.optionalBody,
          name: op.operationId,
          status: op.status,
          admission: extra.admission,
          admitInSend: extra.admitInSend,
        }
      : target;
    const handle = route(options, async (args) => {
      // Set in place, not spread: `args.request` is a getter that makes a `Request` on demand.
      if (op) args.params = op.params.parse(args.params);
      const result = await handler(args);
      if (result instanceof Response) return result;
      if (result instanceof JsonText) return args.respond(result.text, op?.status ?? 200);
      const text = JSON.stringify(result);
      // JSON.stringify answers undefined for what is not JSON: json() refuses it as before.
      return text === undefined
        ? json(result, op?.status)
        : args.respond(text, op?.status ?? 200, result);
    });
    return op ? Object.assign(handle, { operation: op }) : handle;
  }
  return bound;
}

export const agentRoute = surfaceRoute(agentSurface);
export const devRoute = surfaceRoute(devSurface);

function credentialSecret(surface: Surface<unknown>, headers: Headers): string {
  const credential = parseAuthorization(headers.get("authorization"));
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

async function readJson(incoming: Incoming, caller: string, optional: boolean): Promise<unknown> {
  const text = await incoming.text(caller);
  if (text.trim() === "") {
    if (optional) return {};
    throw new CoreError("validation_error", "A JSON body is required", {
      issues: [{ path: "", message: "body is required" }],
    });
  }
  const type = incoming.headers.get("content-type") ?? "";
  if (!/^application\/(.+\+)?json\s*(;|$)/i.test(type))
    throw new CoreError("validation_error", "Content-Type must be application/json", {
      issues: [{ path: "", message: "Content-Type must be application/json" }],
    });
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new CoreError("validation_error", "The body is not valid JSON", {
      issues: [{ path: "", message: (error as Error).message }],
    });
  }
  assertStorableInput(body);
  return body;
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

/**
 * A route file's exports from its bound routes: each under its entry's method, and 405 for the
 * rest (see `methods`).
 */
export function routes(...bound: BoundRoute[]): Record<Method, NextHandler> {
  return methods(Object.fromEntries(bound.map((route) => [route.operation.method, route])));
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
