import { expect, it } from "vitest";
import { captureLogs, log, logRequest, withLogContext } from "./log";

it("writes the request line as pino's log.info would, context and field order included", () => {
  const lines: string[] = [];
  const restore = captureLogs(lines);
  try {
    const fields = { route: "getMe", method: "GET", agentId: "agt_1", status: 200, ms: 1.2 };
    withLogContext({ requestId: "req_1" }, () => {
      log.info(fields, "request");
      logRequest(fields);
      // A refusal before the caller is known has no agentId: left out, as pino leaves it.
      log.info({ ...fields, agentId: undefined }, "request");
      logRequest({ ...fields, agentId: undefined });
    });
  } finally {
    restore();
  }
  const [viaPino, fast, refusedViaPino, refusedFast] = lines.map((line) => {
    expect(line.endsWith("\n")).toBe(true);
    const { time, ...rest } = JSON.parse(line) as Record<string, unknown>;
    expect(typeof time).toBe("number");
    return JSON.stringify(rest); // key order included
  });
  expect(fast).toBe(viaPino);
  expect(refusedFast).toBe(refusedViaPino);
  expect(JSON.parse(fast as string)).toMatchObject({ requestId: "req_1", msg: "request" });
});

it("writes no request line below info", () => {
  const lines: string[] = [];
  const restore = captureLogs(lines);
  const level = log.level;
  log.level = "warn";
  try {
    logRequest({ route: "getMe", method: "GET", status: 200, ms: 1 });
  } finally {
    log.level = level;
    restore();
  }
  expect(lines).toEqual([]);
});
