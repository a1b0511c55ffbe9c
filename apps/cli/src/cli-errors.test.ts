import { createAgent, createUser, listOwnRecords } from "@switchboard/core";
import { createTestDeps } from "@switchboard/core/testing";
import { schema } from "@switchboard/db";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runCli } from "./command";
import { emailCommands } from "./commands/email";
import { userCommands } from "./commands/user";
import { runInProcessJson, spawnCliAt } from "./testing";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

/** Runs the CLI against the test database, as an operator would (in this process). */
const cli = (...args: string[]) => runInProcessJson(t.config.DATABASE_URL as string, args);

/** The real program, spawned as `npm run -s cli` does. */
const spawnCli = (...args: string[]) => spawnCliAt(t.config.DATABASE_URL as string, args);

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("errors and help", () => {
  it("prints one error object on stderr, nothing on stdout, and exits non-zero", async () => {
    const taken = await createUser(t.deps, { num: "111-222-333" });
    await createAgent(t.deps, { ownerId: taken.id, displayName: "A" });
    const usage = (line: string) => new RegExp(`usage: switchboard ${escapeRegExp(line)}`);
    const cases: [string[], string, RegExp[]][] = [
      [
        ["frobnicate"],
        "validation_error",
        [/Unknown command: frobnicate/, /\n {2}user create \[--name N\]/],
      ],
      [["user"], "validation_error", [/Missing subcommand: user/, /user unsuspend --user USER/]],
      [
        ["agent", "create", "--name", "x"],
        "validation_error",
        [/Missing --owner/, usage("agent create --owner USER --name N")],
      ],
      [["agent", "create", "--owner", "nobody-here", "--name", "x"], "not_found", [/nobody-here/]],
      [
        ["agent", "create", "--owner", "111-222-333", "--name", "x", "--scopes", "files:read"],
        "validation_error",
        [/scopes/, usage("agent create")],
      ],
      [["user", "create", "--colour", "red"], "validation_error", [/colour/, usage("user create")]],
      [["user", "create", "--type", "agent"], "validation_error", [/type/]],
      [["user", "create", "--num", "12-34"], "validation_error", [/num/, usage("user create")]],
      [["user", "create", "--num", "111-222-333"], "conflict", [/taken/]],
      [["user", "suspend", "--user"], "validation_error", [/--user/, usage("user suspend")]],
      [["user", "suspend", "--user", "x", "y"], "validation_error", [/Unexpected argument: y/]],
      [
        ["devkey", "create", "--user", "111-222-333", "--scopes", "everything"],
        "validation_error",
        [/scopes/, usage("devkey create")],
      ],
      [
        ["token", "mint", "--agent", "800-000-000", "--expires", "2099-01-01T00:00:00"],
        "validation_error",
        [/--expires must be an ISO 8601 date-time with an offset/, usage("token mint")],
      ],
    ];
    const results = await Promise.all(cases.map(([args]) => cli(...args)));
    results.forEach((result, i) => {
      const [args, code, messages] = cases[i]!;
      const what = args.join(" ");
      expect(result.code, what).not.toBe(0);
      expect(result.stdout, what).toBe("");
      expect(result.err.error.code, what).toBe(code);
      for (const message of messages) expect(result.err.error.message, what).toMatch(message);
    });
  });

  it("prints usage on stdout for no command, --help, a group's --help and a command's --help", async () => {
    const [none, help, group, one] = await Promise.all([
      cli(),
      cli("--help"),
      cli("token", "--help"),
      cli("devkey", "create", "--help"),
    ]);
    for (const result of [none, help, group, one]) {
      expect(result.code).toBe(0);
      expect(result.stderr).toBe("");
    }
    expect(none.stdout).toBe(help.stdout);
    expect(help.stdout).toContain("  start [--dev]");
    expect(help.stdout).toContain("  token mint --agent AGENT [--expires ISO] [--name NAME]");
    expect(help.stdout).toContain("  devkey revoke --key KEY");
    expect(group.stdout).toContain("  token revoke --token TOKEN");
    expect(group.stdout).not.toContain("devkey");
    expect(one.stdout).toBe(
      "usage: switchboard devkey create --user USER --scopes S,... [--expires ISO] [--name NAME]\n",
    );
  });

  it("the program itself: JSON on stdout and exit 0, usage on --help, one error object on stderr and exit 1", async () => {
    const [made, help, failed] = await Promise.all([
      spawnCli("user", "create", "--name", "Spawned"),
      spawnCli("--help"),
      spawnCli("user", "create", "--num", "12-34"),
    ]);
    expect([made.code, made.stderr]).toEqual([0, ""]);
    expect(JSON.parse(made.stdout).user.displayName).toBe("Spawned");
    expect([help.code, help.stderr]).toEqual([0, ""]);
    expect(help.stdout).toContain("  start [--dev]");
    expect([failed.code, failed.stdout]).toEqual([1, ""]);
    expect(JSON.parse(failed.stderr).error.code).toBe("validation_error");
  });

  it("refuses text that cannot be stored (NUL, lone surrogates) in any flag, JSON flags included", async () => {
    const ada = await createUser(t.deps, {});
    // A POSIX argv cannot carry NUL or a lone surrogate; JSON flags can, as escapes.
    const [record, payload] = await Promise.all([
      cli(
        ..."record create --type note --user".split(" "),
        ada.id,
        "--data",
        '{"content":"\\u0000"}',
      ),
      cli(
        ..."action approve --action x --user".split(" "),
        ada.id,
        "--edited-payload",
        '["\\ud800"]',
      ),
    ]);
    expect(record.err.error).toMatchObject({ code: "validation_error" });
    expect(record.err.error.message).toMatch(/^--data \(at content\) must not contain NUL/);
    expect(record.stdout).toBe("");
    expect(payload.err.error.message).toMatch(
      /^--edited-payload \(at 0\) must not contain unpaired/,
    );
    expect(await listOwnRecords(t.deps, ada.id, "note")).toEqual([]);
    // Any string flag, checked once where flags are parsed (runCli's callers are not bound by argv).
    const written: string[] = [];
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const codes = [
        await runCli(
          [..."email send --from x --to x --content hi --subject".split(" "), "a\0"],
          emailCommands,
        ),
        await runCli(["user", "create", "--name", "Ad\udc00a"], userCommands),
      ];
      expect(codes).toEqual([1, 1]);
    } finally {
      stderr.mockRestore();
    }
    expect(written.map((line) => JSON.parse(line).error)).toEqual([
      {
        code: "validation_error",
        message: expect.stringMatching(/^--subject must not contain NUL/),
      },
      {
        code: "validation_error",
        message: expect.stringMatching(/^--name must not contain unpaired/),
      },
    ]);
  });
});

// Issue 42: no CLI command writes a key into the database (keys live in the environment or the
// data directory's keys file). Last in the file, so it sees every command above.
it("leaves no key in the database after every command above", async () => {
  expect(await t.deps.db.select().from(schema.instanceSettings)).toEqual([]);
});
