import { findUser, readNotificationSettings, updateNotificationSettings } from "@switchboard/core";
import { deps } from "../support/fixtures";
import { expect, test } from "../support/test";
import { myNum, signUp } from "./sign-up";

/**
 * Quiet hours are kept in the zone of the browser that saved them: the page says which zone
 * applies now, and which one saving again would use, before the person saves.
 */
test.use({ timezoneId: "Europe/Berlin" });

test("quiet hours say the zone they are saved in, and are saved in this browser's", async ({
  page,
}) => {
  await signUp(page, "Quinn Quiet");
  const user = await findUser(deps(), await myNum(page));
  await page.goto("/settings");
  const zone = page.getByTestId("quiet-zone");
  // Nothing saved yet: hours entered now are this browser's (Berlin), not the default UTC.
  await expect(zone).toContainText("In Europe/Berlin.");
  const form = page.getByRole("form", { name: "Quiet hours" });
  await form.getByLabel("Quiet from").fill("22:00");
  await form.getByLabel("to", { exact: true }).fill("07:00");
  await form.getByRole("button", { name: "Save quiet hours" }).click();
  await expect
    .poll(() => readNotificationSettings(deps(), user.id))
    .toMatchObject({
      quietFrom: "22:00",
      quietTo: "07:00",
      timeZone: "Europe/Berlin",
    });

  // Hours saved from a browser in New York say so here, and which zone saving again would use.
  await updateNotificationSettings(deps(), user.id, { timeZone: "America/New_York" });
  await page.reload();
  await expect(zone).toContainText(
    "Saved in America/New_York; saving again uses this browser's Europe/Berlin.",
  );
  await form.getByRole("button", { name: "Save quiet hours" }).click();
  await expect(zone).toContainText("In Europe/Berlin.");
  expect((await readNotificationSettings(deps(), user.id)).timeZone).toBe("Europe/Berlin");
});
