import type { AgentScope } from "./scopes";

/**
 * What each scope gives an agent, in the words a person reads wherever a scope is described: the
 * consent card, the person's chat settings, the owner's scope picker and the API reference. Say
 * what the agent really receives, not what sounds reassuring.
 */
export const scopeWords: Record<AgentScope, { access: string; sentence: string }> = {
  "messages:read": {
    access: "Read",
    sentence: "Read the messages you send it, your voice notes and your chat history with it",
  },
  "messages:write": {
    access: "Write",
    sentence: "Write to you, react, show typing and suggest actions you approve first",
  },
  "emails:read": { access: "Read", sentence: "Read the emails you send it" },
  "emails:write": { access: "Write", sentence: "Email you" },
  "tasks:read": { access: "Read", sentence: "See your tasks and know when one is due" },
  "tasks:write": { access: "Write", sentence: "Suggest changes to your tasks, for your approval" },
  "reminders:read": {
    access: "Read",
    sentence: "See your reminders and know when one goes off",
  },
  "reminders:write": {
    access: "Write",
    sentence: "Suggest changes to your reminders, for your approval",
  },
  "events:read": { access: "Read", sentence: "See your calendar events" },
  "events:write": {
    access: "Write",
    sentence: "Suggest changes to your calendar events, for your approval",
  },
  "notes:read": { access: "Read", sentence: "See your notes" },
  "notes:write": { access: "Write", sentence: "Suggest changes to your notes, for your approval" },
  "calls:read": {
    access: "Read",
    sentence:
      "Get the transcript of every call you are on, with anyone, including what the other people said, and your own summary of each call",
  },
};

/** The person-facing sentence for a scope. */
export const scopeSentence = (scope: AgentScope): string => scopeWords[scope].sentence;

/** What each kind of record or channel is called, for grouping scopes by surface. */
export const surfaceWords: Record<string, string> = {
  messages: "Messages",
  emails: "Emails",
  tasks: "Tasks",
  reminders: "Reminders",
  events: "Calendar events",
  notes: "Notes",
  calls: "Calls",
};
