import { proposeAction } from "@switchboard/core";
import { deps } from "../support/fixtures";
import { expect, test } from "../support/test";
import { focusRing, tabTo } from "./focus";
import { chatWithNewAgent, consoleWorld, settled } from "./world";

// Times are shown in the reader's zone and language; pin both so the words are the same anywhere.
test.use({ locale: "en-GB", timezoneId: "Europe/Berlin" });

/** Each card as a person reads it: kind, title, summary, then its rows and what an edit changed. */
const expected = [
  [
    "New task | Add the grocery run | Task · due Fri, 29 Nov 2030, 12:30 · normal priority",
    "Title: Grocery run",
    "Due: Fri, 29 Nov 2030, 12:30",
    "Priority: Normal",
    "Changed: Due: Fri, 29 Nov 2030, 10:00 → Fri, 29 Nov 2030, 12:30",
    "Changed: Priority: High → Normal",
  ],
  [
    "New reminder | Remind you about the plumber | Reminder · Sat, 30 Nov 2030, 08:45",
    "Title: Plumber comes",
    "Remind at: Sat, 30 Nov 2030, 08:45",
  ],
  [
    "New event | Book the yoga class | Event · Sun, 1 Dec 2030, 18:00–19:15 · at Studio 4",
    "Title: Yoga",
    "Where: Studio 4",
    "Starts: Sun, 1 Dec 2030, 18:00",
    "Ends: Sun, 1 Dec 2030, 19:15",
  ],
  [
    "New note | Keep the packing list | Note",
    "Title: Packing list",
    "Text: Passport, charger, sunscreen",
  ],
  [
    "Order place | Order the weekly vegetables box | ",
    // Keys come back in the order Postgres keeps them (jsonb: shortest first).
    "Shop: Green Grocer",
    "Items: 1.: Name: Carrots · Quantity: 2 · 2.: Name: Kale · Quantity: 1",
    "Total: Amount: 24.5 · Currency: EUR",
    "Organic: yes",
    "Deliver by: Fri, 29 Nov 2030, 17:00",
  ],
  [
    "Change task | Move the milk run | Task · Changes “Buy milk” · due Thu, 28 Nov 2030, 09:00 · normal priority",
    "Due: Thu, 28 Nov 2030, 09:00 → Fri, 29 Nov 2030, 11:00",
    "Priority: Normal → High",
  ],
  [
    "Complete task | Mark the milk bought | Task · Marks done “Buy milk” · due Thu, 28 Nov 2030, 09:00 · normal priority",
  ],
  [
    "Delete task | Drop the milk task | Task · Deletes “Buy milk” · due Thu, 28 Nov 2030, 09:00 · normal priority",
  ],
  [
    "Change reminder | Call the dentist later | Reminder · Changes “Call the dentist” · Wed, 27 Nov 2030, 16:30",
    "Remind at: Wed, 27 Nov 2030, 16:30 → Wed, 27 Nov 2030, 18:00",
  ],
  [
    "Complete reminder | Dentist called | Reminder · Marks done “Call the dentist” · Wed, 27 Nov 2030, 16:30",
  ],
  [
    "Delete reminder | Forget the dentist | Reminder · Deletes “Call the dentist” · Wed, 27 Nov 2030, 16:30",
  ],
  [
    "Change event | Move lunch to the park | Event · Changes “Team lunch” · Mon, 2 Dec 2030, 12:00–13:30 · at Canteen",
    "Where: Canteen → City Park",
  ],
  [
    "Delete event | Cancel the team lunch | Event · Deletes “Team lunch” · Mon, 2 Dec 2030, 12:00–13:30 · at Canteen",
  ],
  ["Change note | Retitle your ideas | Note · Changes “Ideas”", "Title: Ideas → Weekend ideas"],
  ["Delete note | Remove the ideas note | Note · Deletes “Ideas”"],
];

test("a card for each platform skill (and a custom kind) says what it does in words", async ({
  page,
}) => {
  const world = await consoleWorld(page);
  await page.goto(`/chats/${world.conversationId}`);
  await settled(page);
  const cards = page.getByTestId("approval-card");
  await expect(cards).toHaveCount(expected.length);
  // The server wrote the cards in UTC; they are written again in the reader's zone once the page
  // is hydrated, so the words are read until they are (a single read could see the server's).
  const read = () =>
    cards.evaluateAll((elements) =>
      elements.map((card) => {
        const text = (id: string) =>
          card.querySelector(`[data-testid="${id}"]`)?.textContent?.trim() ?? "";
        /** A dl as "label: value" lines; a nested one joined with " · ". */
        const rows = (list: Element | null): string[] =>
          [...(list?.children ?? [])]
            .filter((row) => row.tagName === "DIV")
            .map((row) => {
              const label = row.querySelector(":scope > dt")?.textContent?.trim();
              const value = row.querySelector(":scope > dd");
              const nested = value?.querySelector(":scope > dl");
              const words = nested
                ? rows(nested).join(" · ")
                : [...(value?.childNodes ?? [])]
                    // Words for screen readers only (clipped to nothing) are not shown.
                    .filter(
                      (node) =>
                        !(node instanceof Element) ||
                        getComputedStyle(node).clipPath !== "inset(50%)",
                    )
                    .map((node) => node.textContent)
                    .join("")
                    .replace(/\s+/g, " ")
                    .trim();
              return `${label}: ${words}`;
            });
        return [
          `${text("card-kind")} | ${text("card-title")} | ${text("card-summary")}`,
          ...rows(card.querySelector('[data-testid="card-payload"]')),
          ...rows(card.querySelector('[data-testid="card-changes"] dl')).map(
            (r) => `Changed: ${r}`,
          ),
        ];
      }),
    );
  await expect.poll(read).toEqual(expected);

  // No raw JSON or UTC anywhere on a card.
  for (const text of await cards.allTextContents()) {
    expect(text).not.toMatch(/[{}[\]]|T\d{2}:\d{2}|Z\b|"/);
  }
  // A pending card says when it expires, relative to now; a decided one when it was decided.
  await expect(cards.nth(14).getByTestId("card-expiry")).toHaveText(/^Expires in 2[34] h$/);
  await expect(cards.nth(0).getByTestId("card-decision")).toHaveText(
    /^Approved by you from the CLI at \d{2}:\d{2} with \d+ changes?$/,
  );
});

test("editing a card starts from everything it proposes, the card's description included", async ({
  page,
}) => {
  const { agent, conversationId } = await chatWithNewAgent(page, "Eda Editor", [
    "messages:read",
    "messages:write",
    "tasks:write",
  ]);
  await proposeAction(
    deps(),
    { agentId: agent.id },
    {
      conversationId,
      skill: "create_task",
      title: "Plan the trip",
      description: "Flights first, then the hotel.",
      payload: { title: "Trip planning", dueDate: "2030-06-01T08:00:00Z", priority: "low" },
    },
  );
  const card = page.getByTestId("approval-card");
  await card.getByTestId("card-edit").click();
  const form = card.getByTestId("card-edit-form");
  await expect(form.getByTestId("field-title")).toHaveValue("Trip planning");
  await expect(form.getByTestId("field-description")).toHaveValue("Flights first, then the hotel.");
  await expect(form.getByTestId("field-dueDate")).toHaveValue("2030-06-01T10:00");
  await expect(form.getByTestId("field-priority")).toHaveValue("low");
  await form.getByTestId("field-priority").selectOption("high");
  await form.getByTestId("card-edit-form-submit").click();
  await expect(card.getByTestId("card-state")).toHaveText("approved");
  await expect(card.getByTestId("card-changes")).toContainText("Low");
  await expect(card.getByTestId("card-changes")).toContainText("High");
});

test("a card can be approved with the keyboard alone, with a visible focus ring", async ({
  page,
}) => {
  const { agent, conversationId } = await chatWithNewAgent(page, "Kim Keys", [
    "messages:read",
    "messages:write",
    "notes:write",
  ]);
  await proposeAction(
    deps(),
    { agentId: agent.id },
    {
      conversationId,
      skill: "create_note",
      title: "Save the door code",
      payload: { content: "4711" },
    },
  );
  const card = page.getByTestId("approval-card");
  await expect(card.getByTestId("card-state")).toHaveText("pending");

  // From the top of a freshly loaded page, Tab through the navigation and the chat to the card's
  // Approve; every stop shows where focus is, and in the dark navigation the ring is light.
  await page.reload();
  await expect(card.getByTestId("card-state")).toHaveText("pending");
  await tabTo(page, "nav-chats");
  expect(await focusRing(page)).toContain("rgb(255, 208, 74)");
  await tabTo(page, "card-approve");
  await page.keyboard.press("Enter");
  await expect(card.getByTestId("card-state")).toHaveText("approved");
  await expect(card.getByTestId("card-execution")).toContainText("view the note");
});
