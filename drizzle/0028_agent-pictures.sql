CREATE TABLE "agent_pictures" (
	"agent_id" text PRIMARY KEY NOT NULL,
	"source_url" text NOT NULL,
	"mime_type" text NOT NULL,
	"data" "bytea" NOT NULL,
	"fetched_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agent_pictures" ADD CONSTRAINT "agent_pictures_agent_id_users_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;