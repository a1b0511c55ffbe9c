import type {
  ApiSurface,
  ErrorCode,
  OperationId,
  Ops,
  PathParamNames,
  surfaceErrors,
} from "@switchboard/contract";
import type { z } from "zod";

/**
 * The SDK's types, read off the contract's operation registry: an operation's input (its path
 * parameters, query and body flattened into one object), its result and the error codes it may
 * answer. A new registry entry gets a typed method with no SDK code.
 */

type Op<K extends OperationId> = Ops[K];

/** Operation ids of one API surface. */
export type SurfaceOperationId<S extends ApiSurface> = {
  [K in OperationId]: Op<K>["surface"] extends S ? K : never;
}[OperationId];
/** Agent API operations (`Bearer agent:<token>`). */
export type AgentOperationId = SurfaceOperationId<"agent">;
/** Developer API operations (`Bearer dev:<key>`). */
export type DevOperationId = SurfaceOperationId<"dev">;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** Each key as the schema accepts it, or already as it parses to (`limit: "20"` or `20`). */
type Loosen<I, O> = { [P in keyof I]: I[P] | (P extends keyof O ? O[P] : never) };

type PathInput<K extends OperationId> = { [N in PathParamNames<Op<K>["path"]>]: string };
type QueryInput<K extends OperationId> =
  Op<K> extends { query: infer Q extends z.ZodType } ? Loosen<z.input<Q>, z.output<Q>> : unknown;
type BodyInput<K extends OperationId> =
  Op<K> extends { body: infer B extends z.ZodType } ? z.input<B> : unknown;

/** What a call takes: path parameters, query parameters and body fields in one object. */
export type OperationInput<K extends OperationId> = Simplify<
  PathInput<K> & QueryInput<K> & BodyInput<K>
>;

/** What a call answers: the parsed JSON of its success, or the `Response` of a binary one. */
export type OperationOutput<K extends OperationId> = Op<K>["response"] extends z.ZodType
  ? z.output<Op<K>["response"]>
  : Response;

type InputErrorCode<O> =
  | (O extends { query: z.ZodType } ? "validation_error" : never)
  | (O extends { body: z.ZodType } ? "validation_error" | "payload_too_large" : never);

/** Every code an operation may answer: its own, its surface's, and those of bad input. */
export type OperationErrorCode<K extends OperationId> =
  | Op<K>["errors"][number]
  | (typeof surfaceErrors)[Op<K>["surface"]][number]
  | InputErrorCode<Op<K>>;

/** Errors the client itself raises when no answer of the service explains the failure. */
export type ClientErrorCode =
  /** The request never got an answer (refused, reset, DNS). */
  | "network_error"
  /** No answer within `timeoutMs`. */
  | "timeout"
  /** An answer that is not the API's JSON (a proxy's HTML page, say). */
  | "unexpected_response"
  /** The stream connection closed while a reply was open or a frame was waiting. */
  | "connection_closed";

/** Any code the SDK may throw. */
export type AnyErrorCode = ErrorCode | ClientErrorCode;

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Extra request headers (`Range` for audio, say). */
  headers?: Record<string, string>;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
  /** Overrides the client's `maxRetries` for this call. */
  maxRetries?: number;
  /**
   * A POST's `Idempotency-Key`. By default each write gets a random UUID, sent again on the
   * client's own retries, so a retried write is done once; pass your own to make a retry of
   * yours (after a restart, say) safe too.
   */
  idempotencyKey?: string;
}

/** A typed method: the input may be left out when every field of it is optional. */
export type OperationMethod<K extends OperationId> =
  Record<never, never> extends OperationInput<K>
    ? (input?: OperationInput<K>, options?: CallOptions) => Promise<OperationOutput<K>>
    : (input: OperationInput<K>, options?: CallOptions) => Promise<OperationOutput<K>>;

/** `call`'s arguments for one operation: its input (optional when it may be empty) and options. */
export type CallArgs<K extends OperationId> = Parameters<OperationMethod<K>>;
