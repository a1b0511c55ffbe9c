-- Per-minute rate counters and the long-poll and stream leases are ephemeral: they are written on
-- every request but only matter for a minute (counters) or while their process lives (leases).
-- UNLOGGED skips the WAL for them. After a crash Postgres empties them, which resets this
-- minute's counts and frees leases whose connections died with it. Daily ceilings stay logged.
ALTER TABLE "rate_counters" SET UNLOGGED;--> statement-breakpoint
ALTER TABLE "parked_polls" SET UNLOGGED;--> statement-breakpoint
ALTER TABLE "stream_connections" SET UNLOGGED;
