import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { repoRoot } from "../support/processes";
import { expect, test } from "../support/test";

const quickstartFile = () => readFileSync(`${repoRoot}/docs/quickstart.md`, "utf8");

test("/docs links the guides, which this instance serves as pages with its own addresses", async ({
  request,
}) => {
  const docs = await (await request.get("/docs")).text();
  expect(docs).toContain('href="/docs/quickstart"');
  expect(docs).toContain('href="/docs/mcp"');
  const port = Number(process.env.E2E_PORT);
  for (const [url, file, address] of [
    ["/docs/quickstart", "quickstart.md", `http://localhost:${port}/api/agent/v1/me`],
    ["/docs/mcp", "mcp.md", `http://localhost:${port}/api/agent/v1/mcp`],
  ] as const) {
    const answer = await request.get(url);
    expect(answer.status(), url).toBe(200);
    expect(answer.headers()["content-type"], url).toContain("text/html");
    const page = await answer.text();
    const words = page.replace(/<[^>]*>/g, "");
    // Every section of the file, and this instance's address where the file says the default.
    const headings = readFileSync(`${repoRoot}/docs/${file}`, "utf8")
      .split("\n")
      .filter((line) => line.startsWith("#"))
      .map((line) => line.replace(/^#+ /, "").replaceAll("`", ""));
    expect(headings.length, file).toBeGreaterThan(3);
    for (const heading of headings) expect(words, url).toContain(heading);
    expect(page, url).toContain(address);
    expect(page, url).not.toContain("localhost:3000");
  }
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
