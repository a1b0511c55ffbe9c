CREATE TABLE "webhook_drain_leases" (
	"agent_id" text PRIMARY KEY NOT NULL,
	"holder" text,
	"again" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook_drain_leases" ADD CONSTRAINT "webhook_drain_leases_agent_id_users_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;