CREATE TABLE "stream_connections" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "stream_connections_agent_idx" ON "stream_connections" USING btree ("agent_id");