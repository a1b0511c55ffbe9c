CREATE TYPE "public"."rejection_choice" AS ENUM('not_now', 'wrong_details', 'never');--> statement-breakpoint
ALTER TABLE "actions" ADD COLUMN "rejection_reason" text;--> statement-breakpoint
ALTER TABLE "actions" ADD COLUMN "rejection_choice" "rejection_choice";