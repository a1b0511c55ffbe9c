import type { AgentEvent } from "@switchboard/contract";
import { SwitchboardError } from "./errors";
import { sleep } from "./http";
import type { AgentOperationId, CallArgs, OperationOutput } from "./types";

export interface UpdatesOptions {
  /**
   * Start after this seq (a cursor you saved), or `"latest"` for only events from now on.
   * Default 0: every event the agent may see, from the beginning.
   */
  afterSeq?: number | "latest";
  /** Seconds each long-poll waits for an event (the service caps it at 25). Default 25. */
  wait?: number;
  /** Events per page, 1-100. Default 100. */
  limit?: number;
  /** Stops the iteration (the loop ends; no error). */
  signal?: AbortSignal;
  /**
   * Called when a poll failed and will be tried again (network, 429, 5xx): the iterator keeps
   * going through outages. Failures that will not heal (401, 403) end it by throwing.
   */
  onError?: (error: SwitchboardError, retryInMs: number) => void;
}

/** What the iterator polls through: the Agent API client's `call`. */
export interface UpdatesSource {
  call<K extends AgentOperationId>(
    operationId: K,
    ...args: CallArgs<K>
  ): Promise<OperationOutput<K>>;
}

/**
 * Events by long-poll, one at a time, oldest first. `cursor` is the seq of the last event this
 * iterator handed out: save it after handling an event and pass it as `afterSeq` next time to
 * resume exactly there (delivery is at-least-once; deduplicate on `id` or `seq`).
 */
export class Updates implements AsyncIterableIterator<AgentEvent> {
  private page: AgentEvent[] = [];
  private seq: number | null;
  private readonly stop = new AbortController();
  private done = false;
  private failures = 0;

  constructor(
    private readonly client: UpdatesSource,
    private readonly options: UpdatesOptions,
  ) {
    this.seq = options.afterSeq === "latest" ? null : (options.afterSeq ?? 0);
    options.signal?.addEventListener("abort", () => this.stop.abort(), { once: true });
  }

  /** The seq of the last event handed out (the starting point until the first event). */
  get cursor(): number {
    return this.seq ?? 0;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<AgentEvent>> {
    while (!this.done) {
      const event = this.page.shift();
      if (event) {
        this.seq = event.seq;
        return { value: event, done: false };
      }
      try {
        await this.fill();
        this.failures = 0;
      } catch (error) {
        if (this.stop.signal.aborted) break;
        if (!(error instanceof SwitchboardError) || !healable(error)) {
          this.done = true;
          throw error;
        }
        this.failures += 1;
        const retryInMs =
          error.retryAfterSeconds !== undefined
            ? error.retryAfterSeconds * 1000
            : Math.min(30_000, 1000 * 2 ** (this.failures - 1));
        this.options.onError?.(error, retryInMs);
        await sleep(retryInMs, this.stop.signal);
      }
    }
    this.done = true;
    return { value: undefined, done: true };
  }

  /** Ends the iteration and cancels the poll in flight (what `break` in `for await` calls). */
  async return(): Promise<IteratorResult<AgentEvent>> {
    this.done = true;
    this.stop.abort();
    return { value: undefined, done: true };
  }

  private async fill(): Promise<void> {
    const signal = this.stop.signal;
    if (this.seq === null)
      this.seq = (await this.client.call("getUpdatesCursor", {}, { signal })).seq;
    const wait = this.options.wait ?? 25;
    const { events } = await this.client.call(
      "pollUpdates",
      { afterSeq: this.seq, wait, limit: this.options.limit },
      { signal, timeoutMs: (wait + 30) * 1000 },
    );
    // At-least-once delivery: a page never goes back past what was handed out.
    const after = this.seq;
    this.page = events.filter((event) => event.seq > after);
  }
}

/** Failures a later poll may not hit: no answer, too many requests, the service restarting. */
function healable(error: SwitchboardError): boolean {
  return error.status === 0 || error.status === 429 || error.status >= 500;
}
