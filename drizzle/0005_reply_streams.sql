CREATE TABLE "reply_streams" (
	"message_id" text PRIMARY KEY NOT NULL,
	"stream_id" text NOT NULL,
	"connection_id" text NOT NULL,
	"conversation_id" text NOT NULL,
	"sender_id" text NOT NULL,
	"text" text DEFAULT '' NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"last_delta_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
ALTER TABLE "reply_streams" ADD CONSTRAINT "reply_streams_conversation_id_conversations_id_fk" FOREIGN KEY ("conversation_id") REFERENCES "public"."conversations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "reply_streams" ADD CONSTRAINT "reply_streams_sender_id_users_id_fk" FOREIGN KEY ("sender_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "reply_streams_conversation_idx" ON "reply_streams" USING btree ("conversation_id");