import { z } from "zod";
import { EventRecord, NoteRecord, ReminderRecord, TaskRecord } from "./records";

/** The four kinds of a person's records. */
export const RecordType = z.enum(["task", "reminder", "event", "note"]);
export type RecordType = z.infer<typeof RecordType>;

/** Any one record, in the projection of its kind. */
export const AnyRecord = z.union([TaskRecord, ReminderRecord, EventRecord, NoteRecord]);
export type AnyRecord = z.infer<typeof AnyRecord>;
