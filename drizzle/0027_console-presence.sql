CREATE TABLE "console_presence" (
	"user_id" text NOT NULL,
	"tab_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "console_presence_user_id_tab_id_pk" PRIMARY KEY("user_id","tab_id")
);
--> statement-breakpoint
ALTER TABLE "console_presence" ADD CONSTRAINT "console_presence_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;