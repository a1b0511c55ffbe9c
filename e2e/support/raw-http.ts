import { request } from "node:http";

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * One HTTP request exactly as given: any method token, a path that is not normalised or
 * re-encoded, any headers and body bytes. `fetch` refuses methods like TRACE and cleans paths up,
 * which is what hostile clients do not do.
 */
export function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  // Node sends no length for a DELETE body unless told; the bytes would read as a next request.
  if (body !== undefined && !Object.keys(headers).some((name) => /^content-length$/i.test(name)))
    headers = { ...headers, "Content-Length": String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { hostname, port, method, path, headers, agent: false, timeout: 20_000 },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            text: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        response.on("error", reject);
      },
    );
    outgoing.on("timeout", () => outgoing.destroy(new Error(`${method} ${path} timed out`)));
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}
