CREATE TABLE "notification_settings" (
	"user_id" text PRIMARY KEY NOT NULL,
	"new_card" boolean DEFAULT true NOT NULL,
	"agent_message" boolean DEFAULT true NOT NULL,
	"expiry_reminder" boolean DEFAULT true NOT NULL,
	"owner_alerts" boolean DEFAULT true NOT NULL,
	"show_text" boolean DEFAULT true NOT NULL,
	"quiet_from" text,
	"quiet_to" text,
	"time_zone" text DEFAULT 'UTC' NOT NULL,
	"quiet_holds_cards" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_subscriptions" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"endpoint" text NOT NULL,
	"p256dh" text NOT NULL,
	"auth" text NOT NULL,
	"expires_at" timestamp with time zone,
	"device_label" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_delivered_at" timestamp with time zone,
	CONSTRAINT "push_subscriptions_endpoint_unique" UNIQUE("endpoint")
);
--> statement-breakpoint
ALTER TABLE "notification_settings" ADD CONSTRAINT "notification_settings_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_subscriptions" ADD CONSTRAINT "push_subscriptions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "push_subscriptions_user_idx" ON "push_subscriptions" USING btree ("user_id");