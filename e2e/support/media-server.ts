import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * An agent's media server: real HTTP on loopback (the service may fetch from it because the
 * e2e run sets MEDIA_ALLOW_INSECURE_HOSTS=127.0.0.1). Serves the given files and records who
 * asked for what, so a spec can tell the service's one fetch from a browser's.
 */
export async function startMediaServer(files: Record<string, { type: string; body: Buffer }>) {
  const requests: { path: string; userAgent: string }[] = [];
  const server = createServer((request, response) => {
    const path = request.url ?? "/";
    requests.push({ path, userAgent: request.headers["user-agent"] ?? "" });
    const file = files[path];
    response.writeHead(file ? 200 : 404, { "Content-Type": file?.type ?? "text/plain" });
    response.end(file?.body ?? "not found");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: (path: string) => `${origin}${path}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
