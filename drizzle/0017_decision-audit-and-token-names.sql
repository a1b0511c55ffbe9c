CREATE TYPE "public"."action_decided_via" AS ENUM('console', 'cli', 'auto_execute', 'expiry', 'contact_removed');--> statement-breakpoint
CREATE TYPE "public"."address_family" AS ENUM('ipv4', 'ipv6');--> statement-breakpoint
ALTER TABLE "actions" ADD COLUMN "decided_by" text;--> statement-breakpoint
ALTER TABLE "actions" ADD COLUMN "decided_via" "action_decided_via";--> statement-breakpoint
ALTER TABLE "actions" ADD COLUMN "approved_payload" jsonb;--> statement-breakpoint
ALTER TABLE "agent_tokens" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "agent_tokens" ADD COLUMN "last_used_family" "address_family";--> statement-breakpoint
ALTER TABLE "developer_keys" ADD COLUMN "name" text;--> statement-breakpoint
ALTER TABLE "developer_keys" ADD COLUMN "last_used_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "developer_keys" ADD COLUMN "last_used_family" "address_family";--> statement-breakpoint
ALTER TABLE "actions" ADD CONSTRAINT "actions_decided_by_users_id_fk" FOREIGN KEY ("decided_by") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "actions_user_resolved_idx" ON "actions" USING btree ("user_id","resolved_at");--> statement-breakpoint
CREATE INDEX "actions_agent_resolved_idx" ON "actions" USING btree ("agent_id","resolved_at");--> statement-breakpoint
CREATE INDEX "actions_record_idx" ON "actions" USING btree (("execution"->>'recordId')) WHERE "actions"."execution" is not null;