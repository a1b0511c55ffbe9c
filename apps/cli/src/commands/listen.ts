import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { AgentEvent } from "@switchboard/contract";
import {
  agentSigningSecrets,
  type CoreDeps,
  CoreError,
  deliveryRequest,
  findAgent,
  latestSeq,
  readEvents,
  rootCause,
} from "@switchboard/core";
import { command, str } from "../command";
import { dataDir } from "../instance";

/** What `listen` keeps per agent in the data dir: where it stopped, and its temporary secret. */
interface ListenState {
  afterSeq: number;
  secret: string;
}

const stateFile = (agentId: string) => path.join(dataDir, "listen", `${agentId}.json`);

function readState(agentId: string): ListenState | null {
  try {
    return JSON.parse(readFileSync(stateFile(agentId), "utf8")) as ListenState;
  } catch {
    return null;
  }
}

function writeState(agentId: string, state: ListenState): void {
  mkdirSync(path.dirname(stateFile(agentId)), { recursive: true });
  writeFileSync(stateFile(agentId), `${JSON.stringify(state)}\n`, { mode: 0o600 });
}

const newTemporarySecret = () =>
  `whsec_${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;

/** One JSON line on stdout while `listen` runs. */
const line = (value: object) => process.stdout.write(`${JSON.stringify(value)}\n`);

function forwardUrl(value: string): URL {
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return url;
  } catch {
    // reported below
  }
  throw new CoreError("validation_error", "--forward-to must be an http(s) URL");
}

function startSeq(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,15}$/.test(value))
    throw new CoreError("validation_error", "--after-seq must be a whole number");
  return Number(value);
}

/**
 * `listen`: the agent's new events, read through core's event read path (so each person's
 * grant masks them as for any agent), POSTed to a local URL signed exactly like a webhook
 * delivery — with the agent's webhook secret(s) when it has a webhook, else with a temporary
 * `whsec_` kept in the data dir. Long-running: one JSON line when it starts, one per event with
 * the local answer, and the usual one object when stopped (Ctrl-C). It resumes where it stopped
 * (the cursor is kept in the data dir); `--after-seq N` starts after N instead.
 */
export const listenCommands = [
  command({
    name: "listen",
    usage: "--agent AGENT --forward-to URL [--after-seq N]",
    flags: {
      agent: { type: "string", required: true },
      "forward-to": { type: "string", required: true },
      "after-seq": { type: "string" },
    },
    async run(flags, deps) {
      const url = forwardUrl(String(flags["forward-to"]));
      const fromFlag = startSeq(str(flags["after-seq"]));
      const agent = await findAgent(deps, String(flags.agent));
      const saved = readState(agent.id);
      const state: ListenState = {
        afterSeq: fromFlag ?? saved?.afterSeq ?? (await latestSeq(deps, agent.id)),
        secret: saved?.secret ?? newTemporarySecret(),
      };
      writeState(agent.id, state);
      const webhookSigns = (await agentSigningSecrets(deps, agent.id)).length > 0;

      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      let wake: (() => void) | null = null;
      let pending = false;
      const unsubscribe = await deps.notifier.subscribe(`agent:${agent.id}`, () => {
        pending = true;
        wake?.();
      });
      line({
        listening: {
          agent: agent.num,
          forwardTo: url.toString(),
          afterSeq: state.afterSeq,
          ...(webhookSigns
            ? { signedWith: "the agent's webhook secret" }
            : { signedWith: "a temporary secret", secret: state.secret }),
        },
      });

      let forwarded = 0;
      try {
        // Subscribed first, then read: an event committed in between is read, not missed.
        while (!stop.signal.aborted) {
          pending = false;
          const page = await readEvents(deps, agent.id, state.afterSeq, 100);
          for (const event of page.events) {
            if (stop.signal.aborted) break;
            line(await forward(deps, agent.id, url, event, state.secret));
            forwarded += 1;
            state.afterSeq = event.seq;
            writeState(agent.id, state);
          }
          if (page.events.length === 100 || pending || stop.signal.aborted) continue;
          // A lost notification delays an event by this much at most.
          await new Promise<void>((resolve) => {
            wake = resolve;
            const timer = setTimeout(resolve, 5000);
            stop.signal.addEventListener("abort", () => resolve(), { once: true });
            timer.unref();
          });
          wake = null;
        }
      } finally {
        unsubscribe();
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
      }
      return { stopped: true, forwarded, afterSeq: state.afterSeq };
    },
  }),
];

/** One POST of one event, as the worker would deliver it (attempt 1); never throws. */
async function forward(
  deps: CoreDeps,
  agentId: string,
  url: URL,
  event: AgentEvent,
  temporarySecret: string,
): Promise<object> {
  const secrets = await agentSigningSecrets(deps, agentId);
  const request = deliveryRequest(
    event,
    secrets.length > 0 ? secrets : [temporarySecret],
    deps.clock.now(),
    1,
  );
  const summary = { id: event.id, seq: event.seq, type: event.type };
  const started = performance.now();
  try {
    const answer = await fetch(url, {
      method: "POST",
      headers: request.headers,
      body: request.body,
      redirect: "manual",
      signal: AbortSignal.timeout(deps.config.WEBHOOK_TIMEOUT_MS),
    });
    const body = (await answer.text()).slice(0, 200);
    const ms = Math.round(performance.now() - started);
    return { event: summary, answer: { status: answer.status, ms, ...(body && { body }) } };
  } catch (error) {
    const root = rootCause(error);
    return { event: summary, error: root instanceof Error ? root.message : String(root) };
  }
}
