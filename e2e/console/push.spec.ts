import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { APIRequestContext, BrowserContext } from "@playwright/test";
import { browserKeys, decryptPush, TEST_KEYS, vapidClaims } from "@switchboard/core/testing";
import { deps, newAgent } from "../support/fixtures";
import { expect, type Page, test } from "../support/test";
import { seriousViolations } from "./axe";
import { signUp } from "./sign-up";

/**
 * Web Push end to end (docs/notifications.md). Headless Chromium has no push service to
 * subscribe with, so the browser's subscription points at a local push service (the e2e run
 * allows 127.0.0.1 for outbound requests, as for webhooks) and is registered from the page with
 * its session; the push itself reaches the service worker through the DevTools protocol.
 */

interface Arrived {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A push service on loopback: every request it takes, answered 201. */
async function pushService() {
  const arrived: Arrived[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      arrived.push({ path: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { arrived, origin, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** A browser's subscription: its own P-256 key and auth secret, at the local push service. */
function subscriptionAt(endpoint: string) {
  const browser = browserKeys();
  return { browser, json: { endpoint, expirationTime: null, keys: browser.keys } };
}

/**
 * Delivers a push to the service worker as a push service would: again until it has acted on it.
 * `ServiceWorker.deliverPushMessage` answers before the worker runs and drops the push without a
 * word when the registration it names is not ready (replaced meanwhile, or its worker stopping
 * on a busy machine); a push service retries until the browser acknowledges. A card is acted on
 * once a notification with its tag is shown, a close once none is.
 */
async function pushToServiceWorker(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  // Each registration's latest state: one replaced meanwhile is reported deleted.
  const registrations = new Map<string, { scopeURL: string; isDeleted: boolean }>();
  cdp.on("ServiceWorker.workerRegistrationUpdated", (event) => {
    for (const { registrationId, scopeURL, isDeleted } of event.registrations)
      registrations.set(registrationId, { scopeURL, isDeleted });
  });
  await cdp.send("ServiceWorker.enable");
  const origin = new URL(page.url()).origin;
  const live = () =>
    [...registrations].filter(([, r]) => r.scopeURL === `${origin}/` && !r.isDeleted).at(-1)?.[0];
  await expect.poll(live).toBeDefined();
  return async (data: { type: string; tag: string; [field: string]: unknown }) => {
    const actedOn = async () => {
      const shown = (await shownNotifications(page)).some((n) => n.tag === data.tag);
      return data.type === "close" ? !shown : shown;
    };
    for (let attempt = 1; ; attempt++) {
      await cdp.send("ServiceWorker.deliverPushMessage", {
        origin: `${origin}/`,
        registrationId: live() as string,
        data: JSON.stringify(data),
      });
      const deadline = Date.now() + 3_000;
      while (Date.now() < deadline) {
        if (await actedOn()) return;
        await page.waitForTimeout(100);
      }
      if (attempt === 5) throw new Error(`the service worker never acted on the push ${data.tag}`);
    }
  };
}

const shownNotifications = (page: Page) =>
  page.evaluate(async () =>
    (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      actions: (n as Notification & { actions: { action: string }[] }).actions.map((a) => a.action),
    })),
  );

/**
 * The service worker's own Approve: a `notificationclick` with the action "approve" on the
 * notification it shows for `tag`, dispatched in the worker (its handler posts the decision).
 */
async function approveInServiceWorker(context: BrowserContext, tag: string) {
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker"));
  await worker.evaluate(async (shownTag) => {
    const scope = self as unknown as {
      registration: ServiceWorkerRegistration;
      dispatchEvent(event: Event): boolean;
    };
    const [notification] = await scope.registration.getNotifications({ tag: shownTag });
    if (!notification) throw new Error(`no notification ${shownTag}`);
    const NotificationEventOf = (
      self as unknown as {
        NotificationEvent: new (
          type: string,
          init: { notification: Notification; action: string },
        ) => Event;
      }
    ).NotificationEvent;
    try {
      scope.dispatchEvent(
        new NotificationEventOf("notificationclick", { notification, action: "approve" }),
      );
    } catch {
      // A synthetic event's waitUntil throws after the handler started its work.
    }
  }, tag);
}

/** The ids of the actions named in the agent's events of `type` so far. */
async function agentEvents(
  request: APIRequestContext,
  auth: Record<string, string>,
  type: string,
): Promise<string[]> {
  const updates = await (
    await request.get("/api/agent/v1/updates?afterSeq=0", { headers: auth })
  ).json();
  return (updates.events as { type: string; payload: { action?: { id: string } } }[])
    .filter((e) => e.type === type)
    .map((e) => e.payload.action?.id ?? "");
}

test("a card reaches the person's device, shows Approve and Reject, is decided from there and closed everywhere; a stale card says so; an agent's message is pushed only while no tab is looked at; sign-out removes the subscription", async ({
  page,
  context,
  request,
}) => {
  test.setTimeout(150_000);
  const service = await pushService();
  await context.grantPermissions(["notifications"]);
  const setup = await newAgent({
    name: "Household Planner",
    scopes: ["messages:read", "messages:write"],
  });
  await signUp(page, "Nora Notified");
  await page.goto(`/chats/add?agent=${setup.agent.num}`);
  await page.getByTestId("consent-add").click();
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
  const conversationId = page.url().split("/").at(-1) as string;

  // Settings: the page is axe-clean, and the service worker controls it.
  await page.goto("/settings");
  await expect(page).toHaveTitle("Settings · Switchboard");
  await expect
    .poll(() => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? ""), {
      timeout: 15_000,
    })
    .toMatch(/\/sw\.js$/);
  expect(await seriousViolations(page)).toEqual([]);

  // This browser subscribes (with its session, from its own origin) and is listed as a device.
  const { browser, json: subscription } = subscriptionAt(`${service.origin}/push/nora`);
  const registered = await page.evaluate(
    (body) =>
      fetch("/api/console/push-subscriptions", {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then((answer) => answer.status),
    subscription,
  );
  expect(registered).toBe(201);
  await page.reload();
  await expect(page.getByTestId("push-devices")).toContainText("Chrome on Linux");

  // The agent proposes a card: the worker pushes it to the device, urgent and encrypted.
  const proposed = await request.post("/api/agent/v1/actions", {
    headers: setup.auth,
    data: { conversationId, kind: "plumber.book", title: "Plumber comes" },
  });
  expect(proposed.status()).toBe(201);
  const actionId = (await proposed.json()).action.id as string;
  await expect.poll(() => service.arrived.length, { timeout: 5_000 }).toBe(1);
  const pushed = service.arrived[0] as Arrived;
  expect(pushed).toMatchObject({
    path: "/push/nora",
    headers: { "content-encoding": "aes128gcm", urgency: "high" },
  });
  // Decrypted as the browser would, signed for this push service's origin for at most a day.
  const claims = vapidClaims(pushed.headers, TEST_KEYS.VAPID_PUBLIC_KEY);
  expect(claims.aud).toBe(service.origin);
  expect(claims.exp * 1000 - Date.now()).toBeLessThanOrEqual(24 * 3600 * 1000);
  expect(decryptPush(pushed.body, browser)).toMatchObject({
    type: "card",
    id: actionId,
    tag: `card:${actionId}`,
    body: "Household Planner wants to do this (plumber book): Plumber comes",
  });

  // The push reaches the service worker, which shows the card with Approve and Reject.
  const deliver = await pushToServiceWorker(page);
  const tag = `card:${actionId}`;
  await deliver({
    type: "card",
    id: actionId,
    title: "Household Planner",
    body: "Household Planner wants to do this (plumber book): Plumber comes",
    url: `/chats/${conversationId}#card-${actionId}`,
    actions: [
      { action: "approve", title: "Approve" },
      { action: "reject", title: "Reject" },
    ],
    tag,
  });
  await expect
    .poll(() => shownNotifications(page))
    .toEqual([
      {
        title: "Household Planner",
        body: "Household Planner wants to do this (plumber book): Plumber comes",
        tag,
        actions: ["approve", "reject"],
      },
    ]);

  // Approve on the notification: the service worker itself posts the decision with the
  // person's session, and the agent hears action.approved.
  await approveInServiceWorker(context, tag);
  await expect
    .poll(async () =>
      (await agentEvents(request, setup.auth, "action.approved")).includes(actionId),
    )
    .toBe(true);

  // The decision sends each device a closing push; delivered, the notification closes.
  await expect.poll(() => service.arrived.length, { timeout: 5_000 }).toBe(2);
  await deliver({ type: "close", id: actionId, title: "", body: "", url: "/", actions: [], tag });
  await expect.poll(() => shownNotifications(page)).toEqual([]);

  // A card decided elsewhere first: Approve on its notification says in words it can no longer be.
  const stale = await request.post("/api/agent/v1/actions", {
    headers: setup.auth,
    data: { conversationId, kind: "plumber.book", title: "Plumber again" },
  });
  const staleId = (await stale.json()).action.id as string;
  const staleTag = `card:${staleId}`;
  await deliver({
    type: "card",
    id: staleId,
    title: "Household Planner",
    body: "Plumber again",
    url: `/chats/${conversationId}#card-${staleId}`,
    actions: [
      { action: "approve", title: "Approve" },
      { action: "reject", title: "Reject" },
    ],
    tag: staleTag,
  });
  await expect.poll(async () => (await shownNotifications(page)).length).toBe(1);
  const elsewhere = await page.evaluate(
    (id) =>
      fetch(`/api/console/actions/${id}/decision`, {
        method: "POST",
        credentials: "same-origin",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ decision: "reject" }),
      }).then((answer) => answer.status),
    staleId,
  );
  expect(elsewhere).toBe(200);
  await approveInServiceWorker(context, staleTag);
  await expect
    .poll(async () => (await shownNotifications(page)).map((n) => n.body).join(" "))
    .toMatch(/^This card can no longer be decided: .+\.$/);
  expect(await agentEvents(request, setup.auth, "action.approved")).not.toContain(staleId);
  await page.evaluate(async () => {
    for (const n of await (await navigator.serviceWorker.ready).getNotifications()) n.close();
  });

  // An agent's message while this tab is looked at: no push. Once no tab is: a push.
  const message = (content: string) =>
    request.post("/api/agent/v1/messages", {
      headers: setup.auth,
      data: { conversationId, type: "text", content },
    });
  const before = service.arrived.length;
  expect((await message("You are looking")).status()).toBe(201);
  await page.waitForTimeout(6_000); // the chat's push window (3 s) and the worker's poll
  expect(service.arrived.length).toBe(before);
  const away = page.waitForResponse((answer) => answer.url().includes("settings.presence"));
  await page.evaluate(() => {
    document.hasFocus = () => false;
    window.dispatchEvent(new Event("blur"));
  });
  expect((await away).status()).toBe(200);
  expect((await message("Nobody is looking")).status()).toBe(201);
  await expect.poll(() => service.arrived.length, { timeout: 10_000 }).toBe(before + 1);
  expect(service.arrived.at(-1)).toMatchObject({
    path: "/push/nora",
    headers: { "content-encoding": "aes128gcm", urgency: "normal" },
  });

  // Signing out removes this browser's subscription first.
  await page.evaluate((endpoint) => {
    const fake = { endpoint, unsubscribe: async () => true };
    PushManager.prototype.getSubscription = async () => fake as unknown as PushSubscription;
  }, subscription.endpoint);
  const removal = page.waitForRequest(
    (req) => req.url().endsWith("/api/console/push-subscriptions") && req.method() === "DELETE",
  );
  await page.getByTestId("sign-out").click();
  expect((await (await removal).response())?.status()).toBe(200);
  await expect(page).toHaveURL(/\/signin/);
  const [left] = await deps().sql`
    select count(*)::int as n from push_subscriptions where endpoint = ${subscription.endpoint}`;
  expect(left?.n).toBe(0);
  await service.close();
});
