-- Hand-written: the person each existing event is about, read from its payload, so that
-- events logged before read-time consent are masked and dropped by the current grant too.
UPDATE "events" SET "person_id" = "payload"->'from'->>'id'
WHERE "person_id" IS NULL AND "type" IN ('message.received', 'message.transcript', 'email.received');
--> statement-breakpoint
UPDATE "events" SET "person_id" = "payload"->'user'->>'id'
WHERE "person_id" IS NULL AND "type" IN ('contact.added', 'task.due', 'reminder.due', 'call.ended');
--> statement-breakpoint
UPDATE "events" e SET "person_id" = a."user_id"
FROM "actions" a
WHERE e."person_id" IS NULL AND e."type" LIKE 'action.%' AND a."id" = e."payload"->'action'->>'id';
