import { describe, expect, it } from "vitest";
import { attachmentDisposition, downloadType, storedObjectResponse } from "./stored-object";

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);
const HTML = Buffer.from("<html><script>alert(document.cookie)</script></html>");
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

const serve = (object: Parameters<typeof storedObjectResponse>[1], range?: string) =>
  storedObjectResponse(
    new Request("http://localhost/x", range ? { headers: { Range: range } } : {}),
    object,
  );

function expectInert(response: Response) {
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("content-security-policy")).toBe(
    "default-src 'none'; sandbox; frame-ancestors 'none'",
  );
}

describe("storedObjectResponse", () => {
  it("downloads documents whatever their declared type, never as an active type", async () => {
    for (const [bytes, declared] of [
      [HTML, "text/html"],
      [SVG, "image/svg+xml"],
      [SVG, "application/xml"],
      [HTML, "text/html; charset=utf-8"],
      [PNG, "image/png"],
    ] as const) {
      const response = serve({ bytes, mimeType: declared, kind: "document", name: "x.html" });
      expect(response.status).toBe(200);
      expectInert(response);
      expect(response.headers.get("content-disposition")).toMatch(/^attachment; /);
      expect(response.headers.get("content-type")).not.toMatch(/html|svg|xml/);
    }
    const pdf = serve({
      bytes: HTML,
      mimeType: "application/pdf",
      kind: "document",
      name: "a.pdf",
    });
    expect(pdf.headers.get("content-type")).toBe("application/pdf");
  });

  it("shows inline only bytes sniffed as media, under the sniffed type", async () => {
    const png = serve({ bytes: PNG, mimeType: "image/gif", kind: "image" });
    expect([png.headers.get("content-type"), png.headers.get("content-disposition")]).toEqual([
      "image/png",
      "inline",
    ]);
    expectInert(png);
    // An image field pointing at SVG or HTML bytes (stored under an image type) downloads.
    for (const bytes of [SVG, HTML]) {
      const response = serve({ bytes, mimeType: "image/svg+xml", kind: "image" });
      expect(response.headers.get("content-disposition")).toMatch(/^attachment; filename="image"/);
      expect(response.headers.get("content-type")).toBe("application/octet-stream");
      expectInert(response);
    }
    const audio = serve({ bytes: HTML, mimeType: "audio/mpeg", kind: "audio" });
    expect(audio.headers.get("content-type")).toBe("application/octet-stream");
  });

  it("keeps the policy on partial and refused ranges", async () => {
    const part = serve({ bytes: HTML, mimeType: "text/html", kind: "document" }, "bytes=0-3");
    expect(part.status).toBe(206);
    expectInert(part);
    expect(part.headers.get("content-disposition")).toMatch(/^attachment/);
    const refused = serve({ bytes: PNG, mimeType: "image/png", kind: "image" }, "bytes=9999-");
    expect(refused.status).toBe(416);
    expectInert(refused);
    expect((await refused.json()).error.code).toBe("range_not_satisfiable");
  });
});

describe("attachmentDisposition", () => {
  it("keeps a plain name, and gives the full name in filename*", () => {
    expect(attachmentDisposition("report 2026.pdf", "document")).toBe(
      `attachment; filename="report 2026.pdf"; filename*=UTF-8''report%202026.pdf`,
    );
    expect(attachmentDisposition("Café (v2).txt", "document")).toBe(
      `attachment; filename="Caf_ (v2).txt"; filename*=UTF-8''Caf%C3%A9%20%28v2%29.txt`,
    );
  });

  it("removes quotes, paths, controls, header breaks and bidi overrides", () => {
    const header = attachmentDisposition('../..\\evil"\r\nSet-Cookie: a=b\u202Efdp.exe', "doc");
    expect(header).not.toMatch(/[\r\n\u202E]|\.\.\/|\\/);
    expect(header.match(/"/g)).toHaveLength(2);
    expect(attachmentDisposition("...", "document")).toMatch(/filename="document"/);
    expect(attachmentDisposition(null, "voice-note")).toMatch(/filename="voice-note"/);
  });
});

describe("downloadType", () => {
  it("keeps passive types and turns everything else into octet-stream", () => {
    expect(downloadType("application/pdf")).toBe("application/pdf");
    expect(downloadType("TEXT/PLAIN; charset=utf-8")).toBe("text/plain");
    for (const active of [
      "text/html",
      "image/svg+xml",
      "application/xhtml+xml",
      "text/xml",
      "application/javascript",
      "text/javascript",
      "application/x-unknown",
      "video/x+xml",
    ])
      expect(downloadType(active)).toBe("application/octet-stream");
  });
});
