import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import { router } from "./init";
import { agentsRouter } from "./routers/agents";
import { authRouter } from "./routers/auth";
import { callsRouter } from "./routers/calls";
import { chatsRouter } from "./routers/chats";
import { developerKeysRouter } from "./routers/developer-keys";
import { feedRouter } from "./routers/feed";
import { inboxRouter } from "./routers/inbox";
import { instanceRouter } from "./routers/instance";
import { liveRouter } from "./routers/live";
import { oauthRouter } from "./routers/oauth";
import { recordsRouter } from "./routers/records";
import { selfChatRouter } from "./routers/self-chat";
import { settingsRouter } from "./routers/settings";
import { tokensRouter } from "./routers/tokens";
import { webhooksRouter } from "./routers/webhooks";

/** The console's API: one router per capability, each procedure a thin adapter over core. */
export const appRouter = router({
  auth: authRouter,
  chats: chatsRouter,
  agents: agentsRouter,
  tokens: tokensRouter,
  webhooks: webhooksRouter,
  live: liveRouter,
  records: recordsRouter,
  selfChat: selfChatRouter,
  developerKeys: developerKeysRouter,
  inbox: inboxRouter,
  feed: feedRouter,
  calls: callsRouter,
  instance: instanceRouter,
  oauth: oauthRouter,
  settings: settingsRouter,
});

export type AppRouter = typeof appRouter;
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
