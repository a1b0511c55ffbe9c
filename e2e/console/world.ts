import { expect, type Page } from "@playwright/test";
import { type AgentScope, agentScopes } from "@switchboard/contract";
import {
  addContact,
  createAgent,
  createRecord,
  decideAction,
  proposeAction,
  putWebhook,
  sendAgentMessage,
  sendPersonEmail,
  sendPersonMessage,
} from "@switchboard/core";
import { deps, newAgent } from "../support/fixtures";
import { signUp } from "./sign-up";

/** Every scope but email and calls, which no page here shows. */
const scopes = agentScopes.filter((scope) => !/^(emails|calls):/.test(scope));

/** A card's proposal as the agent sends it. */
type Proposal = Parameters<typeof proposeAction>[2];

/**
 * A signed-in person who owns an agent and chats with it, with something on every page: a chat
 * with messages (one with a link), an email thread with the agent, and a card for each platform skill plus a custom one, records
 * the change cards name, a webhook whose host does not exist (so its deliveries fail in words),
 * and the agent's history. Names are long on purpose: they must truncate, not widen a page.
 */
export async function consoleWorld(page: Page) {
  const account = await signUp(page, "Morgan Maximilian Montgomery-Whitfield");
  const me = (await page.getByTestId("whoami-num").textContent())?.trim() as string;
  const agent = await createAgent(deps(), {
    ownerId: me,
    displayName: "Planner Extraordinaire for Households",
    requestedScopes: scopes,
    bio: "Plans your week: tasks, reminders, events and notes, always with your approval.",
  });
  const { conversationId } = await addContact(deps(), me, agent.id, scopes);
  const principal = { agentId: agent.id };
  await sendPersonMessage(deps(), me, agent.id, { type: "text", content: "Can you plan my week?" });
  await sendAgentMessage(deps(), principal, {
    conversationId,
    type: "text",
    content: "Of course. I drafted it at https://example.com/plans/week-48 — have a look.",
  });

  const { threadId } = await sendPersonEmail(deps(), me, {
    to: [agent.num],
    subject: "The week ahead, in one place",
    content: "Could you send the plan by email too? I like having it in my inbox.",
  });

  const task = await createRecord(deps(), me, "task", {
    title: "Buy milk",
    dueDate: "2030-11-28T08:00:00Z",
    priority: "normal",
  });
  const reminder = await createRecord(deps(), me, "reminder", {
    title: "Call the dentist",
    reminderTime: "2030-11-27T15:30:00Z",
  });
  const event = await createRecord(deps(), me, "event", {
    title: "Team lunch",
    startTime: "2030-12-02T11:00:00Z",
    endTime: "2030-12-02T12:30:00Z",
    location: "Canteen",
  });
  const note = await createRecord(deps(), me, "note", {
    title: "Ideas",
    content: "Try the new café on Main Street",
  });

  const propose = (request: Omit<Proposal, "conversationId">) =>
    proposeAction(deps(), principal, { conversationId, ...request } as Proposal);
  const cards: Proposal[] = [
    {
      skill: "create_task",
      title: "Add the grocery run",
      description: "Before the weekend, so the fridge is full.",
      payload: { title: "Grocery run", dueDate: "2030-11-29T09:00:00Z", priority: "high" },
    },
    {
      skill: "create_reminder",
      title: "Remind you about the plumber",
      payload: { title: "Plumber comes", reminderTime: "2030-11-30T07:45:00Z" },
    },
    {
      skill: "create_event",
      title: "Book the yoga class",
      payload: {
        title: "Yoga",
        startTime: "2030-12-01T17:00:00Z",
        endTime: "2030-12-01T18:15:00Z",
        location: "Studio 4",
      },
    },
    {
      skill: "create_note",
      title: "Keep the packing list",
      payload: { title: "Packing list", content: "Passport, charger, sunscreen" },
    },
    {
      kind: "order.place",
      title: "Order the weekly vegetables box",
      payload: {
        shop: "Green Grocer",
        total: { amount: 24.5, currency: "EUR" },
        items: [
          { name: "Carrots", quantity: 2 },
          { name: "Kale", quantity: 1 },
        ],
        deliverBy: "2030-11-29T16:00:00Z",
        organic: true,
      },
    },
    {
      skill: "update_task",
      title: "Move the milk run",
      payload: { id: task.id, dueDate: "2030-11-29T10:00:00Z", priority: "high" },
    },
    { skill: "complete_task", title: "Mark the milk bought", payload: { id: task.id } },
    { skill: "delete_task", title: "Drop the milk task", payload: { id: task.id } },
    {
      skill: "update_reminder",
      title: "Call the dentist later",
      payload: { id: reminder.id, reminderTime: "2030-11-27T17:00:00Z" },
    },
    { skill: "complete_reminder", title: "Dentist called", payload: { id: reminder.id } },
  ] as Proposal[];
  const later: Proposal[] = [
    { skill: "delete_reminder", title: "Forget the dentist", payload: { id: reminder.id } },
    {
      skill: "update_event",
      title: "Move lunch to the park",
      payload: { id: event.id, location: "City Park" },
    },
    { skill: "delete_event", title: "Cancel the team lunch", payload: { id: event.id } },
    {
      skill: "update_note",
      title: "Retitle your ideas",
      payload: { id: note.id, title: "Weekend ideas" },
    },
    { skill: "delete_note", title: "Remove the ideas note", payload: { id: note.id } },
  ] as Proposal[];
  const first: Awaited<ReturnType<typeof propose>>["action"][] = [];
  for (const card of cards) first.push((await propose(card)).action);
  // At most 10 may be pending in one chat: decide a few (they keep their words), then the rest.
  const decide = (index: number, approve: boolean, editedPayload?: Record<string, unknown>) =>
    decideAction(deps(), {
      userRef: me,
      actionId: first[index]?.id as string,
      approve,
      editedPayload,
    });
  await decide(0, true, {
    title: "Grocery run",
    dueDate: "2030-11-29T11:30:00Z",
    priority: "normal",
  });
  await decide(3, false);
  await decide(4, false);
  await decide(2, true);
  await decide(1, false);
  for (const card of later) await propose(card);

  await putWebhook(deps(), agent.id, "https://hooks.switchboard-example.invalid/in");
  await sendAgentMessage(deps(), principal, {
    conversationId,
    type: "text",
    content: "Cards are above whenever you are ready.",
  });
  // An event after the webhook was set: its delivery fails, since the host does not exist.
  await sendPersonMessage(deps(), me, agent.id, { type: "text", content: "Thanks, looking now." });
  const records = { task, reminder, event, note };
  return { ...account, me, agent, conversationId, threadId, records };
}

/**
 * A person signed up in the browser who added a fresh agent (asking for `scopes`) through its
 * consent card, granting all of it; the chat is open.
 */
export async function chatWithNewAgent(page: Page, person: string, agentScopes: AgentScope[]) {
  const setup = await newAgent({ scopes: agentScopes });
  await signUp(page, person);
  await page.goto(`/chats/add?agent=${setup.agent.num}`);
  await page.getByTestId("consent-add").click();
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
  return { ...setup, conversationId: page.url().split("/").at(-1) as string };
}

/** Every console page of the world, signed in; `chat` and the agent's pages by their ids. */
export function consolePages(world: Awaited<ReturnType<typeof consoleWorld>>) {
  return {
    chats: "/chats",
    add: "/chats/add",
    consent: `/chats/add?agent=${world.agent.num}`,
    chat: `/chats/${world.conversationId}`,
    waiting: "/waiting",
    inbox: "/inbox",
    thread: `/inbox/${world.threadId}`,
    compose: "/inbox/new",
    feed: "/feed",
    calls: "/calls",
    tasks: "/records/tasks",
    reminders: "/records/reminders",
    events: "/records/events",
    notes: "/records/notes",
    selfChat: "/self-chat",
    agents: "/agents",
    agent: `/agents/${world.agent.id}`,
    agentTokens: `/agents/${world.agent.id}/tokens`,
    webhook: `/agents/${world.agent.id}/webhook`,
    agentDecisions: `/agents/${world.agent.id}/decisions`,
    agentProfile: `/agents/${world.agent.id}/profile`,
    settings: "/settings",
    status: "/agents/status",
    missing: "/chats/cnv_missing",
    notFound: "/records/nothing-here",
  };
}

/** Pages anyone sees, signed in or not. */
export const signedOutPages = { signin: "/signin", signup: "/signup", notFound: "/no-such-page" };

/** Waits until a page shows its content rather than skeletons. */
export async function settled(page: Page) {
  await expect(page.getByTestId("skeleton")).toHaveCount(0, { timeout: 15_000 });
}
