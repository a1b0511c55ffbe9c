import { router } from "./init";
import { agentsRouter } from "./routers/agents";
import { authRouter } from "./routers/auth";
import { developerKeysRouter } from "./routers/developer-keys";
import { selfChatRouter } from "./routers/self-chat";
import { tokensRouter } from "./routers/tokens";

export const appRouter = router({
  auth: authRouter,
  agents: agentsRouter,
  tokens: tokensRouter,
  selfChat: selfChatRouter,
  developerKeys: developerKeysRouter,
});

export type AppRouter = typeof appRouter;
