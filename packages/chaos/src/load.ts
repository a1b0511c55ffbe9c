import type { AgentEvent, AgentScope } from "@switchboard/contract";
import {
  addContact,
  type CoreDeps,
  CoreError,
  createAgent,
  createUser,
  decideAction,
  mintAgentToken,
  sendPersonMessage,
} from "@switchboard/core";
import { WebSocket } from "ws";
import { describeError, isConnectionError, type Ledger, type Outcome } from "./ledger";
import { type Receiver, type ReceiverKind, startReceiver } from "./receivers";

/**
 * The simulated world: agents (each with its token, a stream, a long-poll reader and maybe a
 * webhook) and the people who added them. Agents act over the wire (REST and the stream);
 * people act through core, as the console and the CLI do.
 */
export interface SimPerson {
  id: string;
  num: string;
  conversationId: string;
}

export interface Consumer {
  /** Events in the order they came, duplicates included. */
  events: AgentEvent[];
  lastSeq: number;
}

export interface SimAgent {
  index: number;
  id: string;
  auth: string;
  people: SimPerson[];
  receiver?: Receiver;
  stream: Consumer & { socket?: WebSocket; replies: Map<string, (frame: Frame) => void> };
  poll: Consumer;
}

export interface SentMessage {
  agentId: string;
  conversationId: string;
  messageId: string;
  via: "rest" | "person" | "stream" | "card";
}

export interface SimProposal {
  agentId: string;
  actionId: string;
  title: string;
  person: SimPerson;
  decided?: "approved" | "rejected";
}

type Frame = { type: string; [key: string]: unknown };

const SCOPES: AgentScope[] = ["messages:read", "messages:write", "tasks:read", "tasks:write"];
/** One agent per receiver kind, two ordinary ones, and one without a webhook. */
const RECEIVERS: (ReceiverKind | null)[] = ["ok", "ok", "slow", "failing", "garbage", null];
const PEOPLE_PER_AGENT = 2;

export interface WorldOptions {
  deps: CoreDeps;
  ledger: Ledger;
  webUrls: string[];
  wsUrls: string[];
  random: () => number;
}

export class World {
  readonly agents: SimAgent[] = [];
  readonly sent: SentMessage[] = [];
  readonly proposals: SimProposal[] = [];
  private stopping = false;
  /** Decisions still retrying, and the long-poll readers. */
  private readonly decisions = new Set<Promise<unknown>>();
  private readonly readers: Promise<void>[] = [];

  constructor(private readonly options: WorldOptions) {}

  /** Agents, their webhooks (set before anything happens, so every event is theirs) and people. */
  async setUp(): Promise<void> {
    const { deps, random } = this.options;
    const owner = await createUser(deps, { displayName: "Chaos owner" });
    for (const [index, kind] of RECEIVERS.entries()) {
      const agent = await createAgent(deps, {
        ownerId: owner.id,
        displayName: `Chaos ${index}`,
        requestedScopes: SCOPES,
      });
      const { token } = await mintAgentToken(deps, agent.id);
      const sim: SimAgent = {
        index,
        id: agent.id,
        auth: `Bearer agent:${token}`,
        people: [],
        stream: { events: [], lastSeq: 0, replies: new Map() },
        poll: { events: [], lastSeq: 0 },
      };
      if (kind) {
        sim.receiver = await startReceiver(kind, random);
        const answer = await this.call(sim, "PUT", "/webhook", { url: sim.receiver.url }, "setup");
        if (answer.status !== 200) throw new Error(`PUT /webhook answered ${answer.status}`);
        sim.receiver.secret = (answer.body as { secret: string }).secret;
      }
      for (let p = 0; p < PEOPLE_PER_AGENT; p++) {
        const person = await createUser(deps, { displayName: `Person ${index}.${p}` });
        const { conversationId } = await addContact(deps, person.id, agent.id, SCOPES);
        sim.people.push({ id: person.id, num: person.num, conversationId });
      }
      this.agents.push(sim);
    }
  }

  /** Starts every agent's stream and long-poll reader. */
  startConsumers(): void {
    for (const agent of this.agents) {
      this.connectStream(agent);
      this.readers.push(this.pollLoop(agent));
    }
  }

  /** Drives the load until `untilMs` (ledger time): agents over the wire, people through core. */
  async drive(untilMs: number, pace = 1): Promise<void> {
    const loops = this.agents.flatMap((agent) => [
      this.agentLoop(agent, untilMs, pace),
      ...agent.people.map((person) => this.personLoop(agent, person, untilMs, pace)),
    ]);
    await Promise.all(loops);
    // Decisions still to land (they retry through faults).
    await Promise.all([...this.decisions]);
  }

  /** Stops the consumers (streams closed, long-polls left to finish). */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const agent of this.agents) agent.stream.socket?.close();
    await Promise.allSettled([...this.decisions, ...this.readers]);
    await Promise.all(this.agents.map((agent) => agent.receiver?.close()));
  }

  private track<T>(promise: Promise<T>): Promise<T> {
    this.decisions.add(promise);
    void promise.finally(() => this.decisions.delete(promise)).catch(() => {});
    return promise;
  }

  private pick<T>(list: T[]): T {
    return list[Math.floor(this.options.random() * list.length)] as T;
  }

  /** One Agent API call on a random web process; connection failures come back as outcomes. */
  async call(
    agent: SimAgent,
    method: string,
    path: string,
    body: unknown,
    kind: string,
    webUrl = this.pick(this.options.webUrls),
  ): Promise<{ status: Outcome; body: unknown }> {
    const startedMs = this.options.ledger.now();
    try {
      const response = await fetch(`${webUrl}/api/agent/v1${path}`, {
        method,
        headers: {
          authorization: agent.auth,
          ...(body !== undefined && { "content-type": "application/json" }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(40_000),
      });
      const text = await response.text();
      const parsed = text ? JSON.parse(text) : null;
      this.options.ledger.record(
        kind,
        response.status,
        response.ok ? "" : `${method} ${path}: ${text.slice(0, 200)}`,
        startedMs,
      );
      return { status: response.status, body: parsed };
    } catch (error) {
      this.options.ledger.record(
        kind,
        "connection",
        `${method} ${path}: ${describeError(error)}`,
        startedMs,
      );
      return { status: "connection", body: null };
    }
  }

  private async agentLoop(agent: SimAgent, untilMs: number, pace: number): Promise<void> {
    const { ledger, random } = this.options;
    let n = 0;
    while (ledger.now() < untilMs) {
      const roll = random();
      const person = this.pick(agent.people);
      n++;
      if (roll < 0.65) {
        const answer = await this.call(
          agent,
          "POST",
          "/messages",
          { conversationId: person.conversationId, type: "text", content: `a${agent.index}-${n}` },
          "POST /messages",
        );
        if (answer.status === 201) this.sendAnswered(agent, answer.body, "rest");
      } else if (roll < 0.8) {
        await this.propose(agent, person, n);
      } else if (roll < 0.9) {
        await this.streamedReply(agent, person, n);
      } else {
        await this.call(
          agent,
          "GET",
          `/conversations/${person.conversationId}/messages?limit=20`,
          undefined,
          "GET /conversations/{id}/messages",
        );
      }
      await sleep((300 + random() * 400) / pace);
    }
  }

  private sendAnswered(agent: SimAgent, body: unknown, via: SentMessage["via"]): void {
    const { message, conversationId } = body as {
      message: { id: string };
      conversationId: string;
    };
    this.sent.push({ agentId: agent.id, conversationId, messageId: message.id, via });
  }

  private async personLoop(
    agent: SimAgent,
    person: SimPerson,
    untilMs: number,
    pace: number,
  ): Promise<void> {
    const { ledger, random, deps } = this.options;
    let n = 0;
    while (ledger.now() < untilMs) {
      n++;
      const startedMs = ledger.now();
      try {
        const { message, conversationId } = await sendPersonMessage(deps, person.id, agent.id, {
          type: "text",
          content: `p${agent.index}-${n}`,
        });
        ledger.record("person send (core)", 201);
        this.sent.push({ agentId: agent.id, conversationId, messageId: message.id, via: "person" });
      } catch (error) {
        this.coreFailure("person send (core)", error, startedMs);
      }
      await sleep((1000 + random() * 2000) / pace);
    }
  }

  private coreFailure(kind: string, error: unknown, startedMs: number): void {
    const outcome = isConnectionError(error)
      ? "connection"
      : error instanceof CoreError
        ? error.code
        : "exception";
    this.options.ledger.record(kind, outcome, describeError(error), startedMs);
  }

  /** A create_task proposal; the person decides it a moment later (approve 7 in 10). */
  private async propose(agent: SimAgent, person: SimPerson, n: number): Promise<void> {
    const title = `chaos ${agent.id} ${n}`;
    const answer = await this.call(
      agent,
      "POST",
      "/actions",
      {
        conversationId: person.conversationId,
        skill: "create_task",
        title: `Task ${n}`,
        payload: { title },
      },
      "POST /actions",
    );
    if (answer.status !== 201) return;
    const { action, message, conversationId } = answer.body as {
      action: { id: string };
      message: { id: string };
      conversationId: string;
    };
    this.sent.push({ agentId: agent.id, conversationId, messageId: message.id, via: "card" });
    const proposal: SimProposal = { agentId: agent.id, actionId: action.id, title, person };
    this.proposals.push(proposal);
    this.track(this.decide(proposal, this.options.random() < 0.7));
  }

  /** The person's decision through core; retried through faults until it lands. */
  private async decide(proposal: SimProposal, approve: boolean): Promise<void> {
    const { deps, random } = this.options;
    await sleep(300 + random() * 1200);
    for (let attempt = 0; attempt < 120; attempt++) {
      const startedMs = this.options.ledger.now();
      try {
        await decideAction(deps, {
          userRef: proposal.person.id,
          actionId: proposal.actionId,
          approve,
          conversationId: proposal.person.conversationId,
        });
        this.options.ledger.record("decide (core)", 200);
        proposal.decided = approve ? "approved" : "rejected";
        return;
      } catch (error) {
        // A decision that committed before its answer was lost is "already decided" now.
        if (error instanceof CoreError && error.code === "conflict" && attempt > 0) {
          proposal.decided = approve ? "approved" : "rejected";
          return;
        }
        this.coreFailure("decide (core)", error, startedMs);
        if (!isConnectionError(error)) return;
        await sleep(500);
      }
    }
  }

  /** reply.start, two deltas, reply.end on the agent's stream; the message when it ends. */
  private async streamedReply(agent: SimAgent, person: SimPerson, n: number): Promise<void> {
    const socket = agent.stream.socket;
    const kind = "stream reply";
    if (!socket || socket.readyState !== WebSocket.OPEN) return;
    const streamId = `r${n}`;
    const frames: Frame[] = [];
    let wake: () => void = () => {};
    agent.stream.replies.set(streamId, (frame) => {
      frames.push(frame);
      wake();
    });
    const next = async (type: string): Promise<Frame | "closed"> => {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const found = frames.find((f) => f.type === type || f.type === "error");
        if (found) return found;
        if (socket.readyState !== WebSocket.OPEN || Date.now() > deadline) return "closed";
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 200);
        });
      }
    };
    try {
      const send = (frame: Frame) => socket.send(JSON.stringify(frame));
      send({ type: "reply.start", streamId, conversationId: person.conversationId });
      const started = await next("reply.started");
      if (started === "closed") return this.options.ledger.record(kind, "connection", streamId);
      if (started.type === "error")
        return this.options.ledger.record(kind, errorCode(started), JSON.stringify(started));
      send({ type: "reply.delta", streamId, text: `s${agent.index}-${n} ` });
      send({ type: "reply.delta", streamId, text: "streamed" });
      send({ type: "reply.end", streamId });
      const ended = await next("reply.ended");
      if (ended === "closed") return this.options.ledger.record(kind, "connection", streamId);
      if (ended.type === "error")
        return this.options.ledger.record(kind, errorCode(ended), JSON.stringify(ended));
      this.options.ledger.record(kind, 201);
      const message = ended.message as { id: string; conversationId: string };
      this.sent.push({
        agentId: agent.id,
        conversationId: message.conversationId,
        messageId: message.id,
        via: "stream",
      });
    } catch (error) {
      this.options.ledger.record(kind, "connection", describeError(error));
    } finally {
      agent.stream.replies.delete(streamId);
    }
  }

  /** The agent's stream on a random worker, resumed from its last seq whenever it drops. */
  private connectStream(agent: SimAgent): void {
    if (this.stopping) return;
    const { ledger } = this.options;
    const url = `${this.pick(this.options.wsUrls)}/ws/agent/v1/stream?afterSeq=${agent.stream.lastSeq}`;
    const socket = new WebSocket(url, { headers: { authorization: agent.auth } });
    agent.stream.socket = socket;
    let opened = false;
    socket.on("open", () => {
      opened = true;
      ledger.record("stream connect", 101);
    });
    socket.on("unexpected-response", (_request, response) => {
      ledger.record("stream connect", response.statusCode ?? 0, "refused upgrade");
      socket.terminate();
    });
    socket.on("message", (data) => {
      const frame = JSON.parse(String(data)) as Frame;
      if (frame.type === "event") {
        const event = frame.event as AgentEvent;
        agent.stream.events.push(event);
        agent.stream.lastSeq = Math.max(agent.stream.lastSeq, event.seq);
      } else if (typeof frame.streamId === "string") {
        agent.stream.replies.get(frame.streamId)?.(frame);
      } else if (frame.type === "error") {
        ledger.record("stream frame", errorCode(frame), JSON.stringify(frame));
      }
    });
    socket.on("error", (error) => {
      if (!opened) ledger.record("stream connect", "connection", describeError(error));
    });
    socket.on("close", (code, reason) => {
      if (this.stopping) return;
      if (opened) {
        ledger.reconnects++;
        // 1006 (the worker died) and 1001 (it is stopping) are what a fault looks like.
        if (code !== 1006 && code !== 1001) ledger.record("stream close", code, reason.toString());
      }
      setTimeout(() => this.connectStream(agent), 200);
    });
  }

  private async pollLoop(agent: SimAgent): Promise<void> {
    while (!this.stopping) {
      const answer = await this.call(
        agent,
        "GET",
        `/updates?afterSeq=${agent.poll.lastSeq}&wait=5&limit=100`,
        undefined,
        "GET /updates (wait)",
      );
      if (answer.status === 200) {
        const page = answer.body as { events: AgentEvent[]; nextSeq: number };
        agent.poll.events.push(...page.events);
        agent.poll.lastSeq = page.nextSeq;
      } else await sleep(300);
    }
  }
}

/** An error frame's code; `unavailable` is the stream's 503 (the database out of reach). */
function errorCode(frame: Frame): string | number {
  const code = (frame.error as { code?: string } | undefined)?.code ?? "error";
  return code === "unavailable" ? 503 : code;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
