import type { ApiSurface, OperationId } from "@switchboard/contract";
import { Http, type HttpOptions } from "./http";
import { routes } from "./routes";
import { type AgentStream, openStream, type StreamOptions } from "./stream";
import type {
  AgentOperationId,
  CallArgs,
  CallOptions,
  DevOperationId,
  OperationMethod,
  OperationOutput,
  SurfaceOperationId,
} from "./types";
import { Updates, type UpdatesOptions } from "./updates";

type Methods<K extends OperationId> = { [Id in K]: OperationMethod<Id> };

/**
 * One API surface's client: a method per registry entry of the surface (each a `call` of its
 * operationId, defined from the route table at construction) and `call` itself.
 */
class SurfaceClient<S extends ApiSurface> {
  readonly http: Http;

  constructor(
    private readonly surface: S,
    authorization: string,
    options: HttpOptions,
  ) {
    this.http = new Http(authorization, options);
    for (const [operationId, route] of Object.entries(routes)) {
      if (route.surface !== surface) continue;
      Object.defineProperty(this, operationId, {
        value: (input?: Record<string, unknown>, callOptions?: CallOptions) =>
          this.http.call(operationId, route, input, callOptions),
        enumerable: false,
      });
    }
  }

  /** Calls any operation of this API by its operationId (the named methods do the same). */
  call<K extends SurfaceOperationId<S>>(
    operationId: K,
    ...args: CallArgs<K>
  ): Promise<OperationOutput<K>> {
    const [input, options] = args as [Record<string, unknown> | undefined, CallOptions | undefined];
    const route = routes[operationId];
    if (route?.surface !== this.surface)
      throw new TypeError(`${operationId} is not an operation of the ${this.surface} API`);
    return this.http.call(operationId, route, input, options) as Promise<OperationOutput<K>>;
  }
}

export interface SwitchboardOptions extends HttpOptions {
  /** The agent's token (`sbat_…`), minted in the console or with `switchboard token mint`. */
  token: string;
  /**
   * The stream's address, e.g. `wss://switchboard.example` or `ws://localhost:3001`. Default:
   * the base URL's host over ws(s), on the next port when the base URL names one (a local
   * `npm start` serves the API on PORT and the stream on PORT + 1).
   */
  wsUrl?: string;
}

class SwitchboardClient extends SurfaceClient<"agent"> {
  readonly token: string;
  readonly wsUrl: string;

  constructor(options: SwitchboardOptions) {
    if (!options?.token) throw new TypeError("Switchboard: options.token is required");
    const token = options.token.replace(/^agent:/, "");
    super("agent", `Bearer agent:${token}`, options);
    this.token = token;
    this.wsUrl = (options.wsUrl ?? defaultWsUrl(this.http.baseUrl)).replace(/\/+$/, "");
  }

  /**
   * New events over long-poll, as an async iterator that keeps the cursor (`updates.cursor`):
   * `for await (const event of client.updates({ afterSeq: saved }))`.
   */
  updates(options: UpdatesOptions = {}): Updates {
    return new Updates(this, options);
  }

  /** Opens the real-time stream; resolves once the service said hello. */
  connect(options: StreamOptions = {}): Promise<AgentStream> {
    return openStream(this, options);
  }
}

/** The Agent API client: one typed method per operation of the contract's registry. */
export type Switchboard = SwitchboardClient & Methods<AgentOperationId>;
export const Switchboard = SwitchboardClient as new (options: SwitchboardOptions) => Switchboard;

export interface SwitchboardDeveloperOptions extends HttpOptions {
  /** A developer key (`sbdk_…`), with the scopes it was created with (`self-chat:write`). */
  key: string;
}

class DeveloperClient extends SurfaceClient<"dev"> {
  constructor(options: SwitchboardDeveloperOptions) {
    if (!options?.key) throw new TypeError("SwitchboardDeveloper: options.key is required");
    super("dev", `Bearer dev:${options.key.replace(/^dev:/, "")}`, options);
  }
}

/** The Developer API client (a person's own key): `getDevMe()`, `postSelfMessage({ content })`. */
export type SwitchboardDeveloper = DeveloperClient & Methods<DevOperationId>;
export const SwitchboardDeveloper = DeveloperClient as new (
  options: SwitchboardDeveloperOptions,
) => SwitchboardDeveloper;

/** `http://host:3000/api` → `ws://host:3001`; `https://host/api` → `wss://host`. */
export function defaultWsUrl(baseUrl: string): string {
  const url = new URL(baseUrl);
  const protocol = url.protocol === "https:" ? "wss:" : "ws:";
  const port = url.port ? `:${Number(url.port) + 1}` : "";
  return `${protocol}//${url.hostname}${port}`;
}
