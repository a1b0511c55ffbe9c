import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";
import { expect, it } from "vitest";
import { passwordWorks, startEmbeddedPostgres } from "./embedded";

const connects = passwordWorks;
const withPassword = (url: string, password: string) => {
  const parsed = new URL(url);
  parsed.password = password;
  return parsed.toString();
};

it("gives the embedded Postgres a random password kept beside its data, and moves an old cluster off the fixed one", async () => {
  const root = mkdtempSync(path.join(tmpdir(), "switchboard-embedded-"));
  chmodSync(root, 0o755); // Postgres runs as its own user when we are root
  const dir = path.join(root, "pg");
  const file = `${dir}.password`;
  try {
    let server = await startEmbeddedPostgres({ dir });
    const password = readFileSync(file, "utf8").trim();
    expect(password).toMatch(/^[0-9a-f]{48}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(new URL(server.url).password).toBe(password);
    expect(await connects(server.url)).toBe(true);
    expect(await connects(withPassword(server.url, "switchboard"))).toBe(false);

    // A cluster from before: the old fixed password and no password file.
    const sql = postgres(server.url, { max: 1, onnotice: () => {} });
    await sql.unsafe("alter user postgres password 'switchboard'");
    await sql.end();
    await server.stop();
    rmSync(file);

    server = await startEmbeddedPostgres({ dir });
    try {
      expect(existsSync(file)).toBe(true);
      const fresh = readFileSync(file, "utf8").trim();
      expect(fresh).not.toBe(password);
      expect(await connects(server.url)).toBe(true);
      expect(await connects(withPassword(server.url, "switchboard"))).toBe(false);
    } finally {
      await server.stop();
    }
    // And a plain restart keeps the kept password.
    server = await startEmbeddedPostgres({ dir });
    await server.stop();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}, 180_000);
