import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";

export interface RecordedRequest {
  path: string;
  userAgent: string;
}

/**
 * An agent's own https server on 127.0.0.1 (self-signed certificate) that records every request
 * it gets and answers `body(path)`. Browsers are told apart from the service's own fetches by
 * their user agent.
 */
export async function startRecordingServer(body: (path: string) => Buffer | string) {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-server-"));
  const key = path.join(dir, "key.pem");
  const cert = path.join(dir, "cert.pem");
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"],
      ...["-keyout", key, "-out", cert, "-subj", "/CN=127.0.0.1"],
      ...["-addext", "subjectAltName=IP:127.0.0.1"],
    ],
    { stdio: "ignore" },
  );
  const requests: RecordedRequest[] = [];
  const server = createServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    requests.push({ path: req.url ?? "", userAgent: req.headers["user-agent"] ?? "" });
    res.setHeader("Access-Control-Allow-Origin", "*");
    res.end(body(req.url ?? ""));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    /** What browsers asked for (a headless Chromium says "Chrome" in its user agent). */
    fromBrowsers: () => requests.filter((r) => /Chrome|Mozilla/.test(r.userAgent)),
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
