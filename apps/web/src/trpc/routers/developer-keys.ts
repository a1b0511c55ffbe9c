import { CredentialName, DevScope } from "@switchboard/contract";
import { createDeveloperKey, listDeveloperKeys, revokeDeveloperKey } from "@switchboard/core";
import { z } from "zod";
import { protectedProcedure, router } from "../init";

/** The signed-in person's Developer API keys. The raw key is in the create answer only. */
export const developerKeysRouter = router({
  list: protectedProcedure.query(({ ctx }) => listDeveloperKeys(ctx.deps, ctx.user.id)),
  create: protectedProcedure
    .input(
      z.object({
        scopes: z.array(DevScope),
        expiresAt: z.iso.datetime({ offset: true }).optional(),
        name: CredentialName.or(z.literal("")).optional(),
      }),
    )
    .mutation(({ ctx, input }) =>
      createDeveloperKey(ctx.deps, ctx.user.id, {
        scopes: input.scopes,
        expiresAt: input.expiresAt ? new Date(input.expiresAt) : undefined,
        name: input.name,
      }),
    ),
  revoke: protectedProcedure
    .input(z.object({ keyId: z.string().min(1) }))
    .mutation(({ ctx, input }) =>
      revokeDeveloperKey(ctx.deps, { keyId: input.keyId, userId: ctx.user.id }),
    ),
});
