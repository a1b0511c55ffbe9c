import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test } from "@playwright/test";
import { addContact, createUser, findAgent } from "@switchboard/core";
import { deps } from "../support/fixtures";
import { signUp } from "./sign-up";

test("the owner sets a webhook, watches deliveries, and resumes it after a 410", async ({
  page,
}) => {
  let status = 200;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.statusCode = status;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    await signUp(page, "Wendy Webhook");
    await page.getByTestId("agent-name").fill("Hooky");
    await page.getByTestId("agent-create").click();
    await page.getByTestId("agent-list").getByRole("link", { name: "Hooky" }).click();
    const num = (await page.getByTestId("agent-num").textContent())?.trim() as string;
    await page.getByTestId("agent-webhook-link").click();
    await expect(page.getByTestId("webhook-none")).toBeVisible();

    await page.getByTestId("webhook-url-input").fill("http://example.com/in");
    await page.getByTestId("webhook-save").click();
    await expect(page.getByTestId("webhook-url-error")).toContainText("https");

    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
    await page.getByTestId("webhook-url-input").fill(url);
    await page.getByTestId("webhook-save").click();
    await expect(page.getByTestId("webhook-secret")).toHaveText(/^whsec_/);
    await expect(page.getByTestId("webhook-state")).toHaveText("active");

    // Events of this agent now go to the receiver; the page shows each delivery.
    const agent = await findAgent(deps(), num);
    const person = await createUser(deps(), {});
    await addContact(deps(), person.id, agent.id, []);
    const rows = page.getByTestId("webhook-delivery");
    await expect(rows.first()).toContainText("contact.added");
    await expect(rows.first()).toContainText("succeeded");

    status = 410;
    const other = await createUser(deps(), {});
    await addContact(deps(), other.id, agent.id, []);
    await expect(page.getByTestId("webhook-state")).toHaveText("disabled", { timeout: 10_000 });
    await expect(rows.first()).toContainText("dead");
    await expect(page.getByTestId("webhook-dead")).toHaveText("1");

    status = 200;
    await page.getByTestId("webhook-resume").click();
    await expect(page.getByTestId("webhook-state")).toHaveText("active");
    await expect(rows.first()).toContainText("succeeded", { timeout: 10_000 });
    await page.getByTestId("webhook-rotate").click();
    await expect(page.getByTestId("webhook-secret")).toHaveText(/^whsec_/);
    await expect(page.getByTestId("webhook-facts")).toContainText("Old secret valid until");
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
