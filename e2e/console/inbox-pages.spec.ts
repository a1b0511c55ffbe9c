import { findUser, PERSON_INBOX_PAGE, PERSON_THREAD_PAGE } from "@switchboard/core";
import { schema } from "@switchboard/db";
import { deps, newAgent } from "../support/fixtures";
import { expect, test } from "../support/test";
import { myNum, signUp } from "./sign-up";

const { emailMessages, emailParticipants, emailThreads } = schema;

test("the inbox and a thread show a page at a time; Show older loads the rest, by keyboard too", async ({
  page,
}) => {
  const { agent } = await newAgent({ name: "Prolific" });
  await signUp(page, "Paula Pages");
  const me = await findUser(deps(), await myNum(page));
  // More threads than a page, and one thread with more emails than a page, written straight to
  // the tables (sending them would meet the per-recipient limits). Thread i is i minutes old;
  // the long thread is the newest.
  const now = Date.now();
  const minutesAgo = (m: number) => new Date(now - m * 60_000);
  const threadCount = PERSON_INBOX_PAGE + 2;
  const threads = Array.from({ length: threadCount }, (_, i) => ({
    id: `eth_pages${me.id.slice(-6)}${i}`,
    subject: i === 0 ? "Long thread" : `Thread ${i}`,
    isGroup: false,
    startedById: agent.id,
    createdAt: minutesAgo(i + 1000),
    lastMessageAt: minutesAgo(i),
  }));
  await deps().db.insert(emailThreads).values(threads);
  await deps()
    .db.insert(emailParticipants)
    .values(
      threads.flatMap((thread) => [
        { threadId: thread.id, userId: me.id, joinedAt: thread.createdAt },
        { threadId: thread.id, userId: agent.id, joinedAt: thread.createdAt },
      ]),
    );
  const long = threads[0]?.id as string;
  const emailCount = PERSON_THREAD_PAGE + 5;
  await deps()
    .db.insert(emailMessages)
    .values([
      ...threads.slice(1).map((thread) => ({
        id: `eml_${thread.id}`,
        threadId: thread.id,
        senderId: agent.id,
        content: thread.subject,
        createdAt: thread.lastMessageAt,
      })),
      ...Array.from({ length: emailCount }, (_, i) => ({
        id: `eml_${long}_${String(i).padStart(3, "0")}`,
        threadId: long,
        senderId: agent.id,
        content: `Email number ${i + 1}`,
        createdAt: minutesAgo(emailCount - i),
      })),
    ]);

  await page.goto("/inbox");
  // Hydrated and connected before any key is pressed (the server's HTML has the button too).
  await expect(page.getByTestId("live-status")).toHaveText("live");
  const rows = page.getByTestId("inbox-thread");
  await expect(rows).toHaveCount(PERSON_INBOX_PAGE);
  await expect(rows.first()).toContainText("Long thread");
  const oldest = rows.filter({ hasText: `Thread ${threadCount - 1}` });
  await expect(oldest).toHaveCount(0);
  // The button is a button: focused and pressed from the keyboard.
  const older = page.getByTestId("inbox-older");
  await expect(older).toHaveText("Show older");
  await older.focus();
  await page.keyboard.press("Enter");
  await expect(rows).toHaveCount(threadCount);
  await expect(oldest).toHaveCount(1);
  await expect(older).toHaveCount(0);

  // The long thread opens on its newest emails; Show older emails loads the first ones.
  await rows.first().click();
  const emails = page.getByTestId("email-message");
  await expect(emails).toHaveCount(PERSON_THREAD_PAGE);
  await expect(emails.last()).toContainText(`Email number ${emailCount}`);
  await expect(emails.first()).toContainText("Email number 6");
  await page.getByTestId("thread-older").click();
  await expect(emails).toHaveCount(emailCount);
  await expect(emails.first()).toContainText("Email number 1");
  await expect(page.getByTestId("thread-older")).toHaveCount(0);
});
