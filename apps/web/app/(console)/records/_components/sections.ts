export type RecordType = "task" | "reminder" | "event" | "note";

/** The records pages by their path segment (`/records/tasks`). */
export const sections = {
  tasks: { type: "task", title: "Tasks" },
  reminders: { type: "reminder", title: "Reminders" },
  events: { type: "event", title: "Events" },
  notes: { type: "note", title: "Notes" },
} as const satisfies Record<string, { type: RecordType; title: string }>;

/** The section a path segment names, or undefined (the page answers not found). */
export function sectionOf(slug: string) {
  return Object.hasOwn(sections, slug) ? sections[slug as keyof typeof sections] : undefined;
}
