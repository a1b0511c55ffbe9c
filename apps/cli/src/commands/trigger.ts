import type { AgentEventType } from "@switchboard/contract";
import {
  addContact,
  type CoreDeps,
  CoreError,
  createRecord,
  createUser,
  decideAction,
  findAgent,
  findUser,
  getAgentMe,
  latestSeq,
  listAgentActions,
  proposeAction,
  readEvents,
  sendPersonMessage,
} from "@switchboard/core";
import { command, json, str } from "../command";

type Agent = Awaited<ReturnType<typeof findAgent>>;

/** A new person who adds the agent granting every scope it requests: a realistic contact. */
async function testPerson(deps: CoreDeps, agent: Agent) {
  const me = await getAgentMe(deps, agent.id);
  const user = await createUser(deps, { displayName: "Test Person" });
  const { conversationId } = await addContact(deps, user.id, agent.id, me.requestedScopes);
  return { user: { id: user.id, num: user.num }, conversationId };
}

/** `--from USER` (who must have added the agent), or a new test person. */
async function personFor(deps: CoreDeps, agent: Agent, from: string | undefined) {
  if (!from) return testPerson(deps, agent);
  const user = await findUser(deps, from);
  return { user: { id: user.id, num: user.num } };
}

async function requireScope(deps: CoreDeps, agent: Agent, scope: "tasks:read" | "reminders:read") {
  const me = await getAgentMe(deps, agent.id);
  if (!me.requestedScopes.includes(scope))
    throw new CoreError(
      "validation_error",
      `${agent.num} does not request ${scope}, so no such event reaches it (PATCH /me requestedScopes)`,
    );
}

/**
 * The events the agent got from `afterSeq` on, as it sees them, once one of `type` is there
 * (at once for what commits with the action; a timer's event waits for the worker).
 */
async function eventsSince(
  deps: CoreDeps,
  agentId: string,
  afterSeq: number,
  type: AgentEventType,
  waitMs: number,
) {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const { events } = await readEvents(deps, agentId, afterSeq, 100);
    if (events.some((event) => event.type === type))
      return events.map(({ id, seq, type: t }) => ({ id, seq, type: t }));
    if (Date.now() > deadline)
      throw new CoreError(
        "internal_error",
        `No ${type} reached the agent within ${waitMs / 1000} s: is the worker running (npm start)?`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

type TriggerFlags = Record<string, string | boolean | undefined>;

interface Trigger {
  type: AgentEventType;
  usage: string;
  flags: Record<string, { type: "string" }>;
  /** Does it the way a person (or the platform's timer) would; answers what it made. */
  run(deps: CoreDeps, agent: Agent, flags: TriggerFlags): Promise<object>;
  waitMs?: number;
}

/** The newest pending proposal of the agent, or a new one to a new test person. */
async function pendingAction(deps: CoreDeps, agent: Agent, actionId: string | undefined) {
  if (actionId) return { actionId };
  const [newest] = await listAgentActions(deps, agent.id, { state: "pending", limit: 1 });
  if (newest) return { actionId: newest.id };
  const person = await testPerson(deps, agent);
  const { action } = await proposeAction(
    deps,
    { agentId: agent.id },
    {
      conversationId: person.conversationId,
      kind: "test.trigger",
      title: "A test proposal from switchboard trigger",
      payload: {},
    },
  );
  return { actionId: action.id, person };
}

async function decide(deps: CoreDeps, agent: Agent, flags: TriggerFlags, approve: boolean) {
  const { actionId, person } = await pendingAction(deps, agent, str(flags.action));
  const [proposal] = (await listAgentActions(deps, agent.id, { limit: 100 })).filter(
    (candidate) => candidate.id === actionId,
  );
  if (!proposal) throw new CoreError("not_found", `No proposal ${actionId} of ${agent.num}`);
  const action = await decideAction(deps, {
    userRef: proposal.userId,
    actionId,
    approve,
    ...(approve && { editedPayload: json("edited-payload", flags["edited-payload"]) }),
  });
  return { action: { id: action.id, state: action.state }, ...(person && { person }) };
}

async function dueRecord(
  deps: CoreDeps,
  agent: Agent,
  flags: TriggerFlags,
  type: "task" | "reminder",
) {
  await requireScope(deps, agent, type === "task" ? "tasks:read" : "reminders:read");
  const person = await personFor(deps, agent, str(flags.from));
  // Due a moment from now: the worker's timer fires it, as for any due record.
  const at = new Date(Date.now() + 1000).toISOString();
  const data =
    type === "task"
      ? { title: "A test task from switchboard trigger", dueDate: at }
      : { title: "A test reminder from switchboard trigger", reminderTime: at };
  const record = await createRecord(deps, person.user.id, type, data);
  return { person, [type]: { id: record.id } };
}

const triggers: Trigger[] = [
  {
    type: "message.received",
    usage: "--agent AGENT [--from USER] [--content C]",
    flags: { from: { type: "string" }, content: { type: "string" } },
    async run(deps, agent, flags) {
      const person = await personFor(deps, agent, str(flags.from));
      const { message } = await sendPersonMessage(deps, person.user.id, agent.id, {
        type: "text",
        content: str(flags.content) ?? "Hello from switchboard trigger",
      });
      return { person, message: { id: message.id, conversationId: message.conversationId } };
    },
  },
  {
    type: "contact.added",
    usage: "--agent AGENT",
    flags: {},
    run: (deps, agent) => testPerson(deps, agent),
  },
  {
    type: "action.approved",
    usage:
      "--agent AGENT [--action ID] [--edited-payload JSON]   (default: its newest pending proposal, else a new one)",
    flags: { action: { type: "string" }, "edited-payload": { type: "string" } },
    run: (deps, agent, flags) => decide(deps, agent, flags, true),
  },
  {
    type: "action.rejected",
    usage: "--agent AGENT [--action ID]   (default: its newest pending proposal, else a new one)",
    flags: { action: { type: "string" } },
    run: (deps, agent, flags) => decide(deps, agent, flags, false),
  },
  {
    type: "task.due",
    usage: "--agent AGENT [--from USER]   (needs the running worker)",
    flags: { from: { type: "string" } },
    run: (deps, agent, flags) => dueRecord(deps, agent, flags, "task"),
    waitMs: 30_000,
  },
  {
    type: "reminder.due",
    usage: "--agent AGENT [--from USER]   (needs the running worker)",
    flags: { from: { type: "string" } },
    run: (deps, agent, flags) => dueRecord(deps, agent, flags, "reminder"),
    waitMs: 30_000,
  },
];

/**
 * `trigger EVENT_TYPE --agent AGENT`: makes the platform produce a realistic event for local
 * testing, through the same core operations the console and the worker use (a new test person
 * who adds the agent and writes, an approval on a proposal's card, a task coming due). Answers
 * what it made and the events the agent got, as the agent sees them.
 */
export const triggerCommands = [
  command({
    name: "trigger",
    usage: "   list the events it makes, each with its flags",
    flags: {},
    async run() {
      return {
        triggers: triggers.map((trigger) => ({
          type: trigger.type,
          usage: `trigger ${trigger.type} ${trigger.usage}`,
        })),
      };
    },
  }),
  ...triggers.map((trigger) =>
    command({
      name: `trigger ${trigger.type}`,
      usage: trigger.usage,
      flags: { agent: { type: "string", required: true }, ...trigger.flags },
      async run(flags, deps) {
        const agent = await findAgent(deps, String(flags.agent));
        const before = await latestSeq(deps, agent.id);
        const made = await trigger.run(deps, agent, flags);
        const events = await eventsSince(
          deps,
          agent.id,
          before,
          trigger.type,
          trigger.waitMs ?? 5000,
        );
        return { triggered: trigger.type, ...made, events };
      },
    }),
  ),
];
