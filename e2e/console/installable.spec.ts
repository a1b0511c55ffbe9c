import { expect, test } from "../support/test";
import { signUp } from "./sign-up";

/** A PNG's width and height, from its IHDR chunk. */
const pngSize = (bytes: Buffer) => `${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}`;

test("the console installs: a valid manifest on every page, a service worker in control, the offline page when the network is down", async ({
  page,
  context,
  request,
}) => {
  // The manifest is linked from the sign-in page, and is what an installable app needs.
  await page.goto("/signin");
  const manifestHref = await page.locator('link[rel="manifest"]').getAttribute("href");
  expect(manifestHref).toBe("/manifest.webmanifest");
  const answer = await request.get(manifestHref as string);
  expect(answer.status()).toBe(200);
  expect(answer.headers()["content-type"]).toContain("application/manifest+json");
  const manifest = await answer.json();
  expect(manifest).toMatchObject({
    name: "Switchboard",
    short_name: "Switchboard",
    start_url: "/chats",
    display: "standalone",
    theme_color: "#2f5bea",
    background_color: "#f5f6f8",
  });
  const icons = manifest.icons as { src: string; sizes: string; type: string; purpose: string }[];
  for (const icon of icons) {
    const file = await request.get(icon.src);
    expect(file.status(), icon.src).toBe(200);
    expect(file.headers()["content-type"]).toBe(icon.type);
    expect(pngSize(await file.body()), icon.src).toBe(icon.sizes);
  }
  expect(icons.map((icon) => `${icon.sizes} ${icon.purpose}`).sort()).toEqual([
    "192x192 any",
    "512x512 any",
    "512x512 maskable",
  ]);

  // Signed in, on a console page: linked there too, and the service worker takes control.
  await signUp(page, "Ivy Installer");
  await expect(page.locator('link[rel="manifest"]')).toHaveAttribute(
    "href",
    "/manifest.webmanifest",
  );
  await expect
    .poll(() => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? ""), {
      timeout: 15_000,
    })
    .toMatch(/\/sw\.js$/);

  // It caches the offline page alone, never the pages or API answers just loaded.
  await page.reload();
  await expect(page.getByTestId("whoami")).toBeVisible();
  const cached = await page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of await caches.keys())
      for (const entry of await (await caches.open(name)).keys())
        urls.push(new URL(entry.url).pathname);
    return urls;
  });
  expect(cached).toEqual(["/offline.html"]);

  // The network goes down: a navigation shows the offline page, and comes back with it.
  await context.setOffline(true);
  await page.goto("/records/tasks");
  await expect(page.getByRole("heading", { name: "You're offline" })).toBeVisible();
  await expect(page).toHaveTitle("Offline · Switchboard");
  await context.setOffline(false);
  await page.getByRole("link", { name: "Try again" }).click();
  await expect(page).toHaveURL(/\/chats$/);
  await expect(page.getByTestId("whoami")).toBeVisible();
});
