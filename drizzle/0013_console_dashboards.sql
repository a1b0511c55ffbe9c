CREATE TABLE "agent_daily_refusals" (
	"agent_id" text NOT NULL,
	"day" text NOT NULL,
	"code" text NOT NULL,
	"count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "agent_daily_refusals_agent_id_day_code_pk" PRIMARY KEY("agent_id","day","code")
);
--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "attempted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "request_headers" jsonb;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "response_excerpt" text;