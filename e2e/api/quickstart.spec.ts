import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "../support/processes";
import { expect, test } from "../support/test";

const quickstartFile = () => readFileSync(`${repoRoot}/docs/quickstart.md`, "utf8");

test("/docs links the quickstart, which this instance serves with its own addresses", async ({
  request,
}) => {
  const docs = await (await request.get("/docs")).text();
  expect(docs).toContain('href="/docs/quickstart"');
  expect(docs).toContain('href="/docs/mcp"');
  const quickstart = await request.get("/docs/quickstart");
  expect(quickstart.status()).toBe(200);
  expect(quickstart.headers()["content-type"]).toContain("text/plain");
  const port = Number(process.env.E2E_PORT);
  const served = await quickstart.text();
  expect(served).toBe(
    quickstartFile()
      .replaceAll("http://localhost:3000", `http://localhost:${port}`)
      .replaceAll("ws://localhost:3001", `ws://localhost:${port + 1}`),
  );
  expect(served).not.toContain("localhost:3000");
  const mcp = await request.get("/docs/mcp");
  expect(mcp.status()).toBe(200);
  expect(await mcp.text()).toContain(`http://localhost:${port}/api/agent/v1/mcp`);
});

/** Every file of the console's pages and components, as one text. */
function consoleSource(): string {
  const files = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) return files(full);
      return /\.tsx?$/.test(name) && !name.includes(".test.") ? [full] : [];
    });
  return [
    ...files(path.join(repoRoot, "apps/web/app/(console)")),
    ...files(path.join(repoRoot, "apps/web/src/components")),
  ]
    .map((file) => readFileSync(file, "utf8"))
    .join("\n");
}

test("the console still shows every label the quickstart and the MCP guide quote in bold", () => {
  const source = consoleSource().replace(/\s+/g, " ");
  const consoleSteps = [
    // The quickstart's console steps, and the MCP guide's worked example.
    quickstartFile().split("## 4. Talk to it in the console")[1]?.split("\n## ")[0] ?? "",
    readFileSync(`${repoRoot}/docs/mcp.md`, "utf8").split("## Worked example")[1] ?? "",
  ].join("\n");
  const labels = [...consoleSteps.matchAll(/\*\*([^*]+)\*\*/g)].flatMap((match) =>
    (match[1] ?? "").split(" → "),
  );
  expect(labels).toEqual(expect.arrayContaining(["+ Add an agent", "Add to contacts", "Approve"]));
  for (const label of labels) expect(source, `the console's "${label}"`).toContain(label);
});
