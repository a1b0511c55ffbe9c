import { expect, test } from "../support/test";
import { dropSession, signUp } from "./sign-up";

test("sign-in attempts per email are limited; the page says when to try again", async ({
  page,
  context,
}) => {
  const { email, password } = await signUp(page, "Gus Guesser");
  await dropSession(page, context);
  // Attempts count in 15-minute windows aligned to the clock (core's rateWindow): a window that
  // turned over between the last guess and the right password would let it in. Start where
  // the guesses and the check all fit in one window.
  const windowMs = 15 * 60_000;
  const left = windowMs - (Date.now() % windowMs);
  if (left < 90_000) {
    test.setTimeout(150_000);
    await page.waitForTimeout(left + 1000);
  }
  await page.goto("/signin");
  await page.getByTestId("signin-email").fill(email);
  // 10 attempts per email per window (counted exactly in core's tests); the sign-up used one.
  const error = page.getByTestId("signin-error");
  let wrong = 0;
  for (; wrong < 20; wrong++) {
    await page.getByTestId("signin-password").fill(`guess number ${wrong}`);
    await page.getByTestId("signin-submit").click();
    await expect(error).toContainText(/do not match|Too many/);
    await expect(page.getByTestId("signin-submit")).toBeEnabled();
    if ((await error.textContent())?.includes("Too many")) break;
  }
  expect(wrong).toBeLessThan(20);
  // Now even the right password is refused, with when to come back.
  await page.getByTestId("signin-password").fill(password);
  await page.getByTestId("signin-submit").click();
  await expect(error).toContainText(
    /Too many sign-in attempts for this email\. Try again in \d+ minutes\./,
  );
  await expect(page).toHaveURL(/\/signin$/);
});
