CREATE SEQUENCE "public"."events_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "events" (
	"seq" bigint PRIMARY KEY DEFAULT nextval('events_seq') NOT NULL,
	"id" text NOT NULL,
	"agent_id" text NOT NULL,
	"type" text NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	"payload" jsonb NOT NULL,
	CONSTRAINT "events_id_unique" UNIQUE("id")
);
--> statement-breakpoint
CREATE TABLE "parked_polls" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "events_agent_seq_idx" ON "events" USING btree ("agent_id","seq");--> statement-breakpoint
CREATE INDEX "parked_polls_agent_idx" ON "parked_polls" USING btree ("agent_id");