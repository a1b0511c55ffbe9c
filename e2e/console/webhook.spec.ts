import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { addContact, createUser, findAgent } from "@switchboard/core";
import { deps } from "../support/fixtures";
import { expect, test } from "../support/test";
import { signUp } from "./sign-up";

test("the owner sets a webhook, tests it, watches deliveries, and resumes it after a 410", async ({
  page,
}) => {
  // A long walk: set, test, deliveries, details, retry, 410, held events, resume, resend, filter.
  test.setTimeout(90_000);
  let status = 200;
  const received: { seq: number; attempt: string }[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      const seq = Number((JSON.parse(body) as { seq: number }).seq);
      if (seq > 0) received.push({ seq, attempt: req.headers["x-svc-delivery-attempt"] as string });
      res.statusCode = status;
      res.end(status === 200 ? '{"received":true}' : "not today");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    await signUp(page, "Wendy Webhook");
    await page.getByTestId("nav-agents").click();
    await page.getByTestId("agent-name").fill("Hooky");
    await page.getByTestId("agent-create").click();
    await page.getByTestId("agent-list").getByRole("link", { name: "Hooky" }).click();
    const num = (await page.getByTestId("agent-num").textContent())?.trim() as string;
    await page.getByTestId("agent-tab-webhook").click();
    await expect(page.getByTestId("webhook-none")).toBeVisible();
    await expect(page.getByTestId("breadcrumb-agent")).toHaveText("Hooky");

    await page.getByTestId("webhook-url-input").fill("http://example.com/in");
    await page.getByTestId("webhook-save").click();
    await expect(page.getByTestId("webhook-url-error")).toContainText("https");

    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
    await page.getByTestId("webhook-url-input").fill(url);
    await page.getByTestId("webhook-save").click();
    await expect(page.getByTestId("webhook-secret")).toHaveText(/^whsec_/);
    await expect(page.getByTestId("webhook-state")).toHaveText("waiting for events");

    // A test event goes out signed, like any delivery, and the answer shows at once.
    await page.getByTestId("webhook-test").click();
    const test = page.getByTestId("webhook-test-result");
    await expect(test).toContainText(/Test event delivered: answered 200 in \d+ ms\./);
    await test.getByText("What was sent and what came back").click();
    await expect(test).toContainText("X-Svc-Event-Type: webhook.test");
    await expect(test).toContainText('{"received":true}');

    // Events of this agent now go to the receiver; the page shows each delivery.
    const agent = await findAgent(deps(), num);
    const person = await createUser(deps(), {});
    await addContact(deps(), person.id, agent.id, []);
    const rows = page.getByTestId("webhook-delivery");
    await expect(rows.first()).toContainText("contact.added");
    await expect(rows.first().getByTestId("delivery-status")).toHaveText("delivered");
    await expect(page.getByTestId("webhook-state")).toHaveText("healthy");

    // Each delivery opens to what was sent, what came back, and when.
    await rows.first().getByTestId("delivery-details-toggle").click();
    const detail = page.getByTestId("delivery-detail");
    await expect(detail.getByTestId("delivery-request-headers")).toContainText(
      "X-Svc-Event-Type: contact.added",
    );
    await expect(detail.getByTestId("delivery-request-headers")).toContainText(
      /X-Svc-Signature: t=\d+,v1=[0-9a-f]{64}/,
    );
    await expect(detail.getByTestId("delivery-request-body")).toContainText(
      '"type": "contact.added"',
    );
    await expect(detail.getByTestId("delivery-response-body")).toHaveText('{"received":true}');
    await expect(detail.getByTestId("delivery-answer")).toHaveText("200");
    await expect(detail.getByTestId("delivery-attempted")).toContainText(/answered in \d+ ms/);
    await rows.first().getByTestId("delivery-details-toggle").click();

    // A failing endpoint: the failure in words, and Retry now sends that event again at once.
    status = 503;
    const third = await createUser(deps(), {});
    await addContact(deps(), third.id, agent.id, []);
    await expect(rows.first().getByTestId("delivery-status")).toHaveText("retrying", {
      timeout: 10_000,
    });
    await expect(rows.first().getByTestId("delivery-problem")).toHaveText(
      "Your endpoint answered 503 Service Unavailable: it failed while handling the event. Check its logs.",
    );
    await expect(page.getByTestId("webhook-state")).toHaveText("failing");
    status = 200;
    await rows.first().getByTestId("delivery-retry").click();
    await expect(rows.first().getByTestId("delivery-status")).toHaveText("delivered", {
      timeout: 10_000,
    });
    await expect(page.getByTestId("webhook-state")).toHaveText("healthy");

    status = 410;
    const other = await createUser(deps(), {});
    await addContact(deps(), other.id, agent.id, []);
    await expect(page.getByTestId("webhook-state")).toHaveText("turned off", { timeout: 10_000 });
    await expect(rows.first().getByTestId("delivery-status")).toHaveText("failed");
    await expect(page.getByTestId("webhook-dead")).toHaveText("1");
    await expect(page.getByTestId("webhook-last-problem")).toContainText("410 Gone");

    // The service status page lists it among the owner's webhooks that need attention, and
    // leads back to it.
    await page.goto("/agents");
    await page.getByTestId("service-status-link").click();
    await expect(page.getByTestId("service-state")).toHaveText("Ready");
    await expect(page.getByTestId("queue-ready")).toHaveText(/^\d/);
    const failing = page.getByTestId("failing-webhook");
    await expect(failing).toHaveCount(1);
    await expect(failing).toContainText("Hooky");
    await expect(failing).toContainText("Disabled");
    await expect(failing).toContainText("410 Gone");
    await failing.getByRole("link", { name: "Hooky" }).click();
    await expect(page.getByTestId("webhook-state")).toHaveText("turned off");

    // Events committed while it is off wait for it; the Agents pages warn the owner.
    for (let i = 0; i < 2; i++)
      await addContact(deps(), (await createUser(deps(), {})).id, agent.id, []);
    await expect(page.getByTestId("webhook-waiting")).toContainText(
      "3 events waiting (2 committed while it was off)",
    );
    await expect(page.getByTestId("webhook-banner-item")).toHaveAttribute("data-state", "disabled");
    await expect(page.getByTestId("webhook-banner-item")).toContainText("Hooky");

    // A URL set anew (here by the owner; the agent's PUT is the same core call) keeps it off:
    // its events wait, and the page says that only Resume turns it back on.
    await page.getByTestId("webhook-url-input").fill(url);
    await page.getByTestId("webhook-save").click();
    await expect(page.getByTestId("webhook-secret")).toHaveText(/^whsec_/);
    await expect(page.getByTestId("webhook-state")).toHaveText("turned off");
    await expect(page.getByTestId("webhook-stays-off")).toContainText("keeps it off");
    await expect(page.getByTestId("webhook-waiting")).toContainText("3 events waiting");

    status = 200;
    const before = received.length;
    await page.getByTestId("webhook-resume").click();
    await expect(rows.first().getByTestId("delivery-status")).toHaveText("delivered", {
      timeout: 10_000,
    });
    await expect(page.getByTestId("webhook-state")).toHaveText("healthy");
    // The failed one first, then the two held ones, in seq order.
    await expect.poll(() => received.length).toBe(before + 3);
    const resent = received.slice(before).map((r) => r.seq);
    expect(resent).toEqual([...resent].sort((a, b) => a - b));

    // Resend: the newest event again, as a new attempt of the same event.
    await rows.first().getByTestId("delivery-resend").click();
    await expect.poll(() => received.length).toBe(before + 4);
    expect(received.at(-1)).toEqual({ seq: resent.at(-1), attempt: "2" });
    // The log filtered by status.
    await page.getByTestId("delivery-filter-status").selectOption("dead");
    await expect(rows).toHaveCount(0);
    await page.getByTestId("webhook-rotate").click();
    await expect(page.getByTestId("webhook-secret")).toHaveText(/^whsec_/);
    await expect(page.getByTestId("webhook-facts")).toContainText("Old secret valid until");
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
