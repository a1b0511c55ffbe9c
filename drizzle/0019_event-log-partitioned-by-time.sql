-- The event log becomes a table partitioned by range of `ts` (decision 0047), so retention drops
-- whole partitions instead of deleting rows one by one. Native declarative partitioning, no
-- extension: the embedded Postgres has what it needs. A partitioned table's keys must include
-- the partition key: (seq, ts) and (id, ts). seq still comes from the one `events_seq` sequence
-- (not owned by the table, so it survives the swap) and ids are random, so both stay unique.
-- Every row moves into `events_history`, which holds everything up to the end of today (UTC);
-- `events_default` takes any row no other partition covers, so an insert never fails. The
-- maintenance job (core/maintenance/event-partitions.ts) adds partitions from there on.
ALTER TABLE "events" RENAME CONSTRAINT "events_pkey" TO "events_unpartitioned_pkey";--> statement-breakpoint
ALTER TABLE "events" RENAME CONSTRAINT "events_id_unique" TO "events_unpartitioned_id_unique";--> statement-breakpoint
ALTER INDEX "events_agent_seq_idx" RENAME TO "events_unpartitioned_agent_seq_idx";--> statement-breakpoint
ALTER TABLE "events" RENAME TO "events_unpartitioned";--> statement-breakpoint
CREATE TABLE "events" (
	"seq" bigint DEFAULT nextval('events_seq') NOT NULL,
	"id" text NOT NULL,
	"agent_id" text NOT NULL,
	"person_id" text,
	"type" text NOT NULL,
	"ts" timestamp with time zone NOT NULL,
	"payload" jsonb NOT NULL,
	CONSTRAINT "events_seq_ts_pk" PRIMARY KEY("seq","ts"),
	CONSTRAINT "events_id_ts_unique" UNIQUE("id","ts")
) PARTITION BY RANGE ("ts");--> statement-breakpoint
CREATE INDEX "events_agent_seq_idx" ON "events" USING btree ("agent_id","seq");--> statement-breakpoint
CREATE TABLE "events_history" PARTITION OF "events"
	FOR VALUES FROM (MINVALUE) TO (date_trunc('day', now(), 'UTC') + interval '1 day');--> statement-breakpoint
CREATE TABLE "events_default" PARTITION OF "events" DEFAULT;--> statement-breakpoint
INSERT INTO "events" ("seq", "id", "agent_id", "person_id", "type", "ts", "payload")
	SELECT "seq", "id", "agent_id", "person_id", "type", "ts", "payload" FROM "events_unpartitioned";--> statement-breakpoint
DROP TABLE "events_unpartitioned";
