import { randomInt } from "node:crypto";
import { isUniqueViolation } from "@switchboard/db";

const group = () => String(randomInt(0, 1000)).padStart(3, "0");

/** A random person or business number; `800-` is reserved for agents. */
export function randomPersonNum(): string {
  let first = group();
  while (first === "800" || first === "000") first = group();
  return `${first}-${group()}-${group()}`;
}

export function randomAgentNum(): string {
  return `800-${group()}-${group()}`;
}

/** Runs `insert` with fresh numbers until one is free (collisions are rare but possible). */
export async function withFreshNum<T>(draw: () => string, insert: (num: string) => Promise<T>) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await insert(draw());
    } catch (error) {
      if (attempt < 20 && isUniqueViolation(error, "users_num_unique")) continue;
      throw error;
    }
  }
}
