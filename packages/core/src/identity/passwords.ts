import { randomBytes } from "node:crypto";
import bcrypt from "bcryptjs";

const COST = 10;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, COST);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}

let unknownHash: Promise<string> | undefined;

/**
 * Compares `password` against a hash of a secret nobody knows, as long as a real check takes:
 * for an email with no account (or none that may sign in), so the time a sign-in takes does not
 * tell whether the account exists. Always false.
 */
export async function verifyNoPassword(password: string): Promise<false> {
  unknownHash ??= hashPassword(randomBytes(24).toString("base64"));
  await verifyPassword(password, await unknownHash);
  return false;
}
