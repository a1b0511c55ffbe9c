import type { AgentUser } from "@switchboard/contract";

/** How the inbox names a user: their display name, else their number. */
export const nameOf = (user: AgentUser) => user.displayName ?? user.num;

/** Everyone else in a thread, as one line. */
export const namesOf = (users: AgentUser[]) => users.map(nameOf).join(", ") || "Nobody else";
