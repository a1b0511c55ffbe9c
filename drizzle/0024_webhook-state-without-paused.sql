ALTER TABLE "webhooks" ALTER COLUMN "state" SET DATA TYPE text;--> statement-breakpoint
-- Nothing ever set "paused" (decision 0064); were a row to hold it, it reads as stopped.
UPDATE "webhooks" SET "state" = 'disabled' WHERE "state" = 'paused';--> statement-breakpoint
ALTER TABLE "webhooks" ALTER COLUMN "state" SET DEFAULT 'active'::text;--> statement-breakpoint
DROP TYPE "public"."webhook_state";--> statement-breakpoint
CREATE TYPE "public"."webhook_state" AS ENUM('active', 'disabled');--> statement-breakpoint
ALTER TABLE "webhooks" ALTER COLUMN "state" SET DEFAULT 'active'::"public"."webhook_state";--> statement-breakpoint
ALTER TABLE "webhooks" ALTER COLUMN "state" SET DATA TYPE "public"."webhook_state" USING "state"::"public"."webhook_state";