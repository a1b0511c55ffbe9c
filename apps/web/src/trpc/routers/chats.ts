import { RejectionInput } from "@switchboard/contract";
import {
  addContact,
  addUserContact,
  blockAgent,
  countWaitingCards,
  decideAction,
  describeActionTargets,
  describeChatAgent,
  getConsentCard,
  listPersonChatRows,
  listPersonMessages,
  listWaitingCards,
  markReadByPerson,
  reactAsPerson,
  removeContact,
  sendPersonMessage,
  setAutoExecute,
  setGrant,
  setInitiation,
  setPersonTyping,
  unblockAgent,
  unreactAsPerson,
} from "@switchboard/core";
import { z } from "zod";
import { normalizeAgentNumber } from "~/components/agent-number";
import { protectedProcedure, router } from "../init";

/**
 * The signed-in person's side of their chats with agents: finding an agent and adding it
 * through its consent card, the chat itself, and their settings for each agent. Every input
 * is checked by core (the same rules as the CLI); these schemas only give the shapes.
 */
const chat = z.object({ chat: z.string().min(1) });
const agent = z.object({ agent: z.string().min(1) });
const scopes = z.array(z.string());
const CHAT_PAGE_SIZE = 50;

export const chatsRouter = router({
  /**
   * A page of the chat list, newest activity first: what each row shows (the cards waiting for
   * the person among it), and the cursor of the next page (null at the oldest chat); `search`
   * keeps the chats whose agent's name or number contains it.
   */
  list: protectedProcedure
    .input(
      z
        .object({
          cursor: z.string().nullish(),
          limit: z.number().int().min(1).max(100).optional(),
          // Checked by core (its length is a validation_error there, as for the CLI).
          search: z.string().nullish(),
        })
        .optional(),
    )
    .query(({ ctx, input }) => listPersonChatRows(ctx.deps, ctx.user.id, input)),

  consentCard: protectedProcedure
    .input(agent)
    .query(({ ctx, input }) =>
      getConsentCard(ctx.deps, ctx.user.id, normalizeAgentNumber(input.agent)),
    ),

  add: protectedProcedure
    .input(agent.extend({ scopes }))
    .mutation(({ ctx, input }) => addContact(ctx.deps, ctx.user.id, input.agent, input.scopes)),

  /** Another person into the caller's contacts, by number (contacts_of_contacts looks at them). */
  addPerson: protectedProcedure
    .input(z.object({ num: z.string().trim().min(1).max(40) }))
    .mutation(({ ctx, input }) => addUserContact(ctx.deps, ctx.user.id, input.num)),

  /**
   * A page of the chat, oldest first; `cursor` (a message id) pages back before it. Each change
   * card comes with the record it targets as it is now (`targets`).
   */
  page: protectedProcedure
    .input(chat.extend({ cursor: z.string().nullish() }))
    .query(async ({ ctx, input }) => {
      const page = await listPersonMessages(ctx.deps, ctx.user.id, input.chat, {
        before: input.cursor ?? undefined,
        limit: CHAT_PAGE_SIZE,
      });
      const actions = page.messages.flatMap((message) => (message.action ? [message.action] : []));
      return { ...page, targets: await describeActionTargets(ctx.deps, ctx.user.id, actions) };
    }),

  /**
   * Every card waiting on the person across their chats, the one expiring first first, each with
   * its agent and (a change card) the record it targets as it is now. `since` (ms since the epoch:
   * when the person opened the list) keeps the cards decided since then, showing how they ended.
   */
  waiting: protectedProcedure
    .input(z.object({ since: z.number().int().min(0).max(8.64e15) }))
    .query(async ({ ctx, input }) => {
      const waiting = await listWaitingCards(ctx.deps, ctx.user.id, {
        decidedSince: new Date(input.since),
      });
      const actions = waiting.cards.map((card) => card.action);
      return { ...waiting, targets: await describeActionTargets(ctx.deps, ctx.user.id, actions) };
    }),

  /** How many cards wait on the person, and when the first expires: the nav, title and badge. */
  waitingCount: protectedProcedure.query(({ ctx }) => countWaitingCards(ctx.deps, ctx.user.id)),

  /** The chat header's facts about the agent: bio, paused, owner. */
  agent: protectedProcedure
    .input(chat)
    .query(({ ctx, input }) => describeChatAgent(ctx.deps, ctx.user.id, input.chat)),

  send: protectedProcedure
    .input(chat.extend({ message: z.unknown() }))
    .mutation(({ ctx, input }) =>
      sendPersonMessage(ctx.deps, ctx.user.id, input.chat, input.message),
    ),

  markRead: protectedProcedure
    .input(chat.extend({ messageId: z.string().optional() }))
    .mutation(({ ctx, input }) =>
      markReadByPerson(ctx.deps, ctx.user.id, input.chat, input.messageId),
    ),

  typing: protectedProcedure
    .input(chat.extend({ typing: z.boolean() }))
    .mutation(({ ctx, input }) => setPersonTyping(ctx.deps, ctx.user.id, input.chat, input.typing)),

  react: protectedProcedure
    .input(z.object({ messageId: z.string(), emoji: z.string(), on: z.boolean() }))
    .mutation(async ({ ctx, input }) => {
      if (input.on) await reactAsPerson(ctx.deps, ctx.user.id, input.messageId, input.emoji);
      else await unreactAsPerson(ctx.deps, ctx.user.id, input.messageId, input.emoji);
    }),

  setGrant: protectedProcedure
    .input(agent.extend({ scopes }))
    .mutation(({ ctx, input }) => setGrant(ctx.deps, ctx.user.id, input.agent, input.scopes)),

  setReplyOnly: protectedProcedure
    .input(agent.extend({ replyOnly: z.boolean() }))
    .mutation(({ ctx, input }) =>
      setInitiation(ctx.deps, ctx.user.id, input.agent, input.replyOnly ? "reply_only" : "any"),
    ),

  setBlocked: protectedProcedure
    .input(agent.extend({ blocked: z.boolean() }))
    .mutation(({ ctx, input }) =>
      (input.blocked ? blockAgent : unblockAgent)(ctx.deps, ctx.user.id, input.agent),
    ),

  setAutoExecute: protectedProcedure
    .input(agent.extend({ skill: z.string(), enabled: z.boolean() }))
    .mutation(({ ctx, input }) =>
      setAutoExecute(ctx.deps, ctx.user.id, input.agent, input.skill, input.enabled),
    ),

  /**
   * Approve (optionally with an edited payload) or reject a card, from its own chat; a
   * rejection may say why (a quick choice, a short reason), which the agent sees.
   */
  decide: protectedProcedure
    .input(
      chat.extend({
        actionId: z.string().min(1),
        approve: z.boolean(),
        editedPayload: z.unknown().optional(),
        ...RejectionInput.shape,
      }),
    )
    .mutation(({ ctx, input: { reason, choice, ...input } }) =>
      decideAction(ctx.deps, {
        userRef: ctx.user.id,
        actionId: input.actionId,
        approve: input.approve,
        editedPayload: input.editedPayload,
        conversationId: input.chat,
        via: "console",
        ...((reason !== undefined || choice !== undefined) && { rejection: { reason, choice } }),
      }),
    ),

  remove: protectedProcedure
    .input(agent)
    .mutation(({ ctx, input }) => removeContact(ctx.deps, ctx.user.id, input.agent)),
});
