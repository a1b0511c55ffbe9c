import { expect, test } from "../support/test";
import { signUp } from "./sign-up";

/**
 * What a new person finds: Agents is a tab even before they own one, and its empty list says what
 * an agent is and leads to creating one; Records opens on the list, the new-record form behind a
 * button that works from the keyboard and puts the cursor in the form.
 */

test("a person who owns no agent finds Agents and a way to create one", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await signUp(page, "Nadia Noagent");
  await page.getByTestId("nav-agents").click();
  await expect(page).toHaveURL(/\/agents$/);
  const empty = page.getByTestId("agent-list-empty");
  await expect(empty).toContainText("800 number");
  await empty.getByRole("button", { name: "Create an agent" }).click();
  await expect(page.getByTestId("agent-name")).toBeFocused();
  await page.keyboard.type("Helper");
  await page.getByTestId("agent-create").click();
  await expect(page.getByTestId("agent-list").getByRole("link", { name: "Helper" })).toBeVisible();
  await expect(empty).toBeHidden();
});

test("Records opens on its list; the new-record form waits behind its button", async ({ page }) => {
  await signUp(page, "Rita Records");
  await page.getByTestId("nav-records").click();
  await expect(page).toHaveURL(/\/records\/tasks$/);
  await expect(page.getByTestId("records-empty")).toBeVisible();
  const form = page.getByTestId("record-create-form");
  await expect(form).toBeHidden();
  const open = page.getByTestId("record-new");
  await expect(open).toHaveText("New task");
  await expect(open).toHaveAttribute("aria-expanded", "false");

  // From the keyboard: the button opens the form and the cursor lands in its first field.
  await open.focus();
  await page.keyboard.press("Enter");
  await expect(form).toBeVisible();
  await expect(open).toHaveAttribute("aria-expanded", "true");
  await expect(form.getByTestId("field-title")).toBeFocused();
  await page.keyboard.type("Call the plumber");
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("record").filter({ hasText: "Call the plumber" })).toBeVisible();
  // Ready for the next one.
  await expect(form.getByTestId("field-title")).toHaveValue("");
  await expect(form.getByTestId("field-title")).toBeFocused();

  await page.getByTestId("record-create-close").click();
  await expect(form).toBeHidden();
  await open.click();
  await expect(form).toBeVisible();
  // Another kind of record starts closed again, its button named for it.
  await page.getByTestId("records-tab-notes").click();
  await expect(page).toHaveURL(/\/records\/notes$/);
  await expect(page.getByTestId("record-new")).toHaveText("New note");
  await expect(form).toBeHidden();
});
