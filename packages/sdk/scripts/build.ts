/**
 * Builds the publishable SDK into dist/ (or the directory given as the first argument):
 *   index.js     one ESM bundle; the contract's registries are inlined as plain data (src/routes.ts
 *                is replaced by its exports as literals), so it never loads zod; `ws` stays an
 *                optional peer, loaded only when the stream is opened on Node without a WebSocket.
 *   index.d.ts   one declaration bundle: the SDK's types with the contract's declarations inlined;
 *                they refer to `zod` for its types only (a peer dependency, never imported at run time).
 *   package.json the package as published (exports, peers, engines), and README.md.
 * Run with `npm run build -w @switchboard/sdk`; `npm publish dist/` would publish it.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { generateDtsBundle } from "dts-bundle-generator";
import { build } from "esbuild";

const root = path.resolve(import.meta.dirname, "..");
const outDir = path.resolve(process.argv[2] ?? path.join(root, "dist"));
const routesFile = path.join(root, "src/routes.ts");

export async function buildSdk(out: string): Promise<void> {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });

  const data = await import(routesFile);
  const literal = Object.entries(data)
    .map(([name, value]) => `export const ${name} = ${JSON.stringify(value, null, 2)};`)
    .join("\n");
  const result = await build({
    entryPoints: [path.join(root, "src/index.ts")],
    outfile: path.join(out, "index.js"),
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: ["ws"],
    metafile: true,
    legalComments: "none",
    logLevel: "warning",
    plugins: [
      {
        name: "registry-as-data",
        setup(b) {
          b.onLoad({ filter: /[\\/]src[\\/]routes\.ts$/ }, () => ({
            contents: literal,
            loader: "js",
          }));
        },
      },
    ],
  });
  const leaked = Object.keys(result.metafile.inputs).filter(
    (input) => input.includes("node_modules/zod") || input.includes("contract/src"),
  );
  if (leaked.length > 0) throw new Error(`the bundle would load zod or the contract: ${leaked}`);

  const [types] = generateDtsBundle(
    [
      {
        filePath: path.join(root, "src/index.ts"),
        libraries: { inlinedLibraries: ["@switchboard/contract"] },
        output: { noBanner: true, exportReferencedTypes: false },
      },
    ],
    { preferredConfigPath: path.join(root, "tsconfig.build.json") },
  );
  writeFileSync(path.join(out, "index.d.ts"), types as string);

  const own = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const published = {
    name: own.name,
    version: own.version,
    description: "TypeScript client for Switchboard agents: Agent API, long-poll, stream, webhooks",
    type: "module",
    exports: { ".": { types: "./index.d.ts", default: "./index.js" } },
    types: "./index.d.ts",
    files: ["index.js", "index.d.ts", "README.md"],
    sideEffects: false,
    engines: { node: ">=20.9" },
    peerDependencies: { ws: "^8.0.0", zod: "^4.0.0" },
    peerDependenciesMeta: { ws: { optional: true } },
    license: "MIT",
  };
  writeFileSync(path.join(out, "package.json"), `${JSON.stringify(published, null, 2)}\n`);
  copyFileSync(path.join(root, "README.md"), path.join(out, "README.md"));
}

if (import.meta.filename === process.argv[1] || process.argv[1]?.endsWith("scripts/build.ts"))
  await buildSdk(outDir).then(() => console.log(`built ${path.relative(process.cwd(), outDir)}`));
