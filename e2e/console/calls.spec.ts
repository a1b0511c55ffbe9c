import { createUser, endCall } from "@switchboard/core";
import { deps } from "../support/fixtures";
import { expect, test } from "../support/test";
import { fitsWidth, myNum, signUp } from "./sign-up";

test("the Calls page shows a person their calls with their own summary and the transcript", async ({
  page,
}, testInfo) => {
  await signUp(page, "Cleo Caller");
  const num = await myNum(page);
  const bob = await createUser(deps(), { displayName: "Bob Builder" });
  const dee = await createUser(deps(), { displayName: "Dee" });
  const transcript = [
    "Cleo: Hi Bob, shall we go over the plan?",
    "Bob: Sure. The delivery is on Thursday.",
    `Cleo: ${"And a very long line without breaks: ".concat("x".repeat(120))}`,
  ].join("\n");
  await endCall(deps(), {
    participants: [
      { user: num, summary: "You agreed to confirm the Thursday delivery." },
      { user: bob.id, summary: "Bob will bring the paperwork." },
    ],
    duration: 125,
    transcript,
  });

  await page.getByTestId("nav-calls").click();
  await expect(page).toHaveURL(/\/calls$/);
  const call = page.getByTestId("call");
  await expect(call).toHaveCount(1);
  await expect(call.getByTestId("call-title")).toHaveText("Call with Bob Builder");
  await expect(call.getByTestId("call-duration")).toHaveText("2 min 5 s");
  await expect(call.getByTestId("relative-time")).toHaveText(/^(now|\d+ min|\d\d:\d\d)$/);
  await expect(call.getByTestId("relative-time")).toHaveAttribute("title", /\d{4}/);
  // Their own summary, never Bob's.
  await expect(call.getByTestId("call-summary")).toHaveText(
    "You agreed to confirm the Thursday delivery.",
  );
  await expect(page.getByText("Bob will bring the paperwork.")).toHaveCount(0);
  await expect(call.getByTestId("call-transcript")).toBeHidden();
  await call.getByTestId("call-transcript-toggle").click();
  await expect(call.getByTestId("call-transcript")).toHaveText(transcript);
  await expect(page.getByTestId("live-status")).toHaveText("live");

  // A call that ends while the page is open appears on top, without a reload.
  await endCall(deps(), {
    participants: [{ user: dee.id }, { user: num }, { user: bob.num }],
    isGroup: true,
    duration: 30,
  });
  await expect(page.getByTestId("call")).toHaveCount(2);
  const group = page.getByTestId("call").first();
  await expect(group.getByTestId("call-title")).toHaveText("Group call with Dee, Bob Builder");
  await expect(group.getByTestId("call-untranscribed")).toBeVisible();

  await page.screenshot({ path: testInfo.outputPath("calls-1280x800.png"), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(page.getByTestId("call")).toHaveCount(2);
  await page.screenshot({ path: testInfo.outputPath("calls-390x844.png"), fullPage: true });
  expect(await fitsWidth(page)).toBe(true);
});
