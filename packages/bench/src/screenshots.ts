/// <reference lib="dom" />
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { crc32, deflateSync } from "node:zlib";
import type { Page } from "@playwright/test";
import { ensureWebBuild } from "@switchboard/cli/build";
import { startService } from "@switchboard/cli/service";
import { type AgentSendMessageRequest, agentScopes } from "@switchboard/contract";
import {
  addContact,
  commentOnPost,
  createAgent,
  createDeveloperKey,
  createPost,
  createRecord,
  createUser,
  decideAction,
  endCall,
  ManualClock,
  mintAgentToken,
  postSelfMessage,
  proposeAction,
  putWebhook,
  reactAsPerson,
  sendAgentEmail,
  sendAgentMessage,
  sendPersonEmail,
  sendPersonMessage,
  setPostLike,
} from "@switchboard/core";
import { TEST_KEYS } from "@switchboard/core/testing";
import { type ConsoleSession, newContext, signIn, startConsoleRun } from "./console-fixture";
import { freePort } from "./worker-process";

/**
 * `npm run screenshots`: every console page at 390 and 1280 px, in the light and the dark theme
 * (the system's scheme), written to docs/console/ as `<page>-<width>.png` and
 * `<page>-<width>-dark.png`, so the pictures in the repository show the console as it is. The
 * service is started as `npm start` starts it (built when stale), on a fresh database on
 * DATABASE_URL's server or an embedded Postgres, with a small world made through core: a
 * person with a few agents and chats (text, markdown, a voice note, a picture, a location,
 * cards), an inbox, a feed, calls, records, notes to self, and an agent of their own whose
 * webhook (a local receiver that fails now and then) has deliveries. The rich chat is shot three
 * times: at its end, at its start and at its media. Pages that scroll sideways are reported.
 */
const out = path.resolve(import.meta.dirname, "../../../docs/console");
const widths = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
];
const schemes = ["light", "dark"] as const;
const PASSWORD = "correct horse battery";
const HOUR = 3600_000;
const DAY = 24 * HOUR;

/** A local webhook receiver: every third delivery fails with a 500, the rest are answered 200. */
let received = 0;
const receiver = createServer((request, response) => {
  request.resume();
  request.on("end", () => {
    response.statusCode = ++received % 3 === 0 ? 500 : 200;
    response.end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/switchboard`;

/** The service's own limits (the pages show them), with the local receiver allowed. */
const settings = { ...TEST_KEYS, WEBHOOK_ALLOW_INSECURE_HOSTS: "127.0.0.1" };
/** The world's times: a few days of history, told by a clock the script moves. */
const clock = new ManualClock(new Date(Date.now() - 3 * DAY));
const run = await startConsoleRun({
  config: settings,
  poolSize: 3,
  clock,
  start: async (databaseUrl) => {
    ensureWebBuild((line) => console.error(line));
    return startService({
      databaseUrl,
      port: await freePort(),
      wsPort: await freePort(),
      env: { ...settings, LOG_LEVEL: "warn" },
      output: "ignore",
    });
  },
});
const { deps, browser, base } = run;

/** Sets the world's clock `ago` milliseconds before now. */
const at = (ago: number) => clock.set(new Date(Date.now() - ago));

/** A 1200×800 sunset (a sky fading to a dark shore, a low sun) as a PNG data URL. */
function picture(width = 1200, height = 800): string {
  const stride = width * 3 + 1; // each row: its filter byte (0, none), then RGB
  const pixels = Buffer.alloc(stride * height);
  const shore = height * 0.7;
  for (let y = 0; y < height; y++) {
    const t = Math.min(y / shore, 1);
    const sky = [247 - 141 * t, 178 - 102 * t, 103 + 44 * t];
    for (let x = 0; x < width; x++) {
      const sun = (x - width * 0.7) ** 2 + (y - shore) ** 2 < 90 ** 2;
      const rgb = y >= shore ? [43, 45, 66] : sun ? [255, 236, 179] : sky;
      pixels.set(rgb.map(Math.round), y * stride + 1 + x * 3);
    }
  }
  const chunk = (type: string, data: Buffer) => {
    const typed = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const framed = Buffer.alloc(data.length + 12);
    framed.writeUInt32BE(data.length, 0);
    typed.copy(framed, 4);
    framed.writeUInt32BE(crc32(typed), data.length + 8);
    return framed;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2], 8); // 8 bits a channel, RGB
  const png = Buffer.concat([
    Buffer.from("89504e470d0a1a0a", "hex"),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(pixels)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
  return `data:image/png;base64,${png.toString("base64")}`;
}

/** A short voice note: `seconds` of a soft tone as 8 kHz 16-bit mono WAV, as a data URL. */
function voiceNote(seconds: number): string {
  const rate = 8000;
  const samples = rate * seconds;
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write("RIFF", 0);
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write("WAVEfmt ", 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(rate, 24);
  wav.writeUInt32LE(rate * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write("data", 36);
  wav.writeUInt32LE(samples * 2, 40);
  for (let i = 0; i < samples; i++)
    wav.writeInt16LE(Math.round(3000 * Math.sin((2 * Math.PI * 220 * i) / rate)), 44 + i * 2);
  return `data:audio/wav;base64,${wav.toString("base64")}`;
}

/** The world; answers the signed-in person and the ids the pages need. */
async function seed() {
  at(3 * DAY);
  const email = `ada-${Date.now()}@example.com`;
  const ada = await createUser(deps, { displayName: "Ada Lovelace", email, password: PASSWORD });
  const grace = await createUser(deps, { displayName: "Grace Hopper" });
  const linus = await createUser(deps, { displayName: "Linus Pauling" });
  const studio = await createUser(deps, { displayName: "Northwind Studio" });
  const profiles = {
    travel: ["Travel Desk", "Trips planned around you, booked only with your approval."],
    weather: ["Weather Watch", "Tomorrow's weather where you are, every evening."],
    recipes: ["Recipe Box", "A week of dinners from what is in your fridge."],
    museum: ["Museum Guide", "Opening hours, tickets and the stories behind the art."],
    planner: ["Household Planner", "Plans your week: tasks, reminders, events and notes."],
  } as const;
  const made: Record<string, Awaited<ReturnType<typeof createAgent>>> = {};
  for (const [key, [displayName, bio]] of Object.entries(profiles))
    made[key] = await createAgent(deps, {
      ownerId: key === "planner" ? ada.id : studio.id,
      displayName,
      bio,
      requestedScopes: [...agentScopes],
    });
  const { travel, weather, recipes, museum, planner } = made as Record<
    keyof typeof profiles,
    Awaited<ReturnType<typeof createAgent>>
  >;
  const chats: Record<string, string> = {};
  // Everything granted, but the planner does not hear of calls: its webhook's deliveries are
  // then only its chat's events, made in time order like everything on its pages.
  for (const added of [weather, recipes, planner, travel]) {
    const grant = agentScopes.filter((scope) => added !== planner || scope !== "calls:read");
    chats[added.id] = (await addContact(deps, ada.id, added.id, grant)).conversationId;
  }

  // The owner's agent: a token, a webhook whose deliveries the person's messages set off.
  await mintAgentToken(deps, planner.id);
  await putWebhook(deps, planner.id, hookUrl);

  /** What an agent sends into its chat with Ada. */
  const send = (from: { id: string }, message: Omit<AgentSendMessageRequest, "to">) =>
    sendAgentMessage(deps, { agentId: from.id }, message);
  const travelChat = chats[travel.id] as string;
  at(2 * DAY + 5 * HOUR);
  await sendPersonMessage(deps, ada.id, travel.id, {
    type: "text",
    content: "I'm in Lisbon next week. Any ideas for a free afternoon?",
  });
  at(2 * DAY + 5 * HOUR - 60_000);
  await send(travel, {
    conversationId: travelChat,
    type: "text",
    content:
      "**Three ideas** for a free afternoon:\n\n1. Tram 28 early, before the crowds\n2. *Pastéis de nata* in Belém\n3. Sunset at the Miradouro da Graça\n\nOpening times are on [visitlisboa.com](https://www.visitlisboa.com/en).",
  });
  at(DAY + 2 * HOUR);
  await send(travel, {
    conversationId: travelChat,
    type: "image",
    content: "The view from Graça at sunset",
    imageData: picture(),
  });
  await send(travel, {
    conversationId: travelChat,
    type: "location",
    content: "Miradouro da Graça",
    latitude: "38.7163",
    longitude: "-9.1311",
  });
  at(DAY + HOUR);
  const { message: asked } = await sendPersonMessage(deps, ada.id, travel.id, {
    type: "text",
    content: "Love it. Can you book the tram tour for Tuesday morning?",
  });
  at(40 * 60_000);
  await send(travel, {
    conversationId: travelChat,
    type: "voice",
    audioData: voiceNote(4),
    audioDuration: "4",
    transcript: "Tuesday at nine works. I'll hold two seats while you decide.",
  });
  at(30 * 60_000);
  await proposeAction(
    deps,
    { agentId: travel.id },
    {
      conversationId: travelChat,
      skill: "create_event",
      title: "Book the Tram 28 tour",
      description: "Two seats, paid on the day.",
      payload: {
        title: "Tram 28 tour",
        startTime: new Date(Date.now() + 5 * DAY).toISOString(),
        endTime: new Date(Date.now() + 5 * DAY + 2 * HOUR).toISOString(),
        location: "Praça Martim Moniz",
      },
    },
  );
  await reactAsPerson(deps, ada.id, asked.id, "👍");

  // The planner's chat: a card approved, one pending; each message Ada sends is a delivery.
  const plannerChat = chats[planner.id] as string;
  const propose = (skill: string, title: string, payload: Record<string, unknown>) =>
    proposeAction(deps, { agentId: planner.id }, {
      conversationId: plannerChat,
      skill,
      title,
      payload,
    } as Parameters<typeof proposeAction>[2]);
  const write = (content: string) =>
    sendPersonMessage(deps, ada.id, planner.id, { type: "text", content });
  at(5 * HOUR);
  await write("Can you sort out the week?");
  at(4 * HOUR);
  const groceries = await propose("create_task", "Add the grocery run", {
    title: "Grocery run",
    dueDate: new Date(Date.now() + DAY).toISOString(),
    priority: "high",
  });
  at(4 * HOUR - 10 * 60_000);
  await decideAction(deps, {
    userRef: ada.id,
    actionId: groceries.action.id,
    approve: true,
    via: "console",
  });
  at(3 * HOUR);
  await write("And remind me about the plumber.");
  at(2 * HOUR);
  await propose("create_reminder", "Remind you about the plumber", {
    title: "Plumber comes",
    reminderTime: new Date(Date.now() + 2 * DAY).toISOString(),
  });
  await send(planner, {
    conversationId: plannerChat,
    type: "text",
    content: "Both are on cards above. The grocery run is on your list.",
  });
  at(HOUR);
  await write("Thanks!");

  // Inbox: an agent's email with a reply, and a group thread with people.
  at(2 * DAY);
  const { thread } = await sendAgentEmail(
    deps,
    { agentId: recipes.id },
    {
      to: ada.num,
      subject: "Five dinners for next week",
      content:
        "Monday: lentil soup. Tuesday: roast vegetables with feta. Wednesday: mushroom risotto. Thursday: fish tacos. Friday: pizza night.\n\nThe shopping list is below.",
    },
  );
  at(DAY + 3 * HOUR);
  await sendPersonEmail(deps, ada.id, {
    threadId: thread.id,
    content: "Perfect, but swap Thursday for something without fish, please.",
  });
  at(6 * HOUR);
  await sendPersonEmail(deps, ada.id, {
    to: [grace.num, linus.num],
    subject: "Picnic on Saturday?",
    content: "The park by the river, around noon. I'll bring lemonade.",
  });

  // Feed: posts from two agents, one liked and commented on.
  at(20 * HOUR);
  const forecast = await createPost(
    deps,
    { agentId: weather.id },
    {
      texts: ["Sunny and 24 °C tomorrow.", "Light wind from the west; rain on Friday."],
      caption: "Your weekend forecast",
    },
  );
  at(8 * HOUR);
  await createPost(
    deps,
    { agentId: recipes.id },
    {
      texts: ["Tonight: a 20-minute tomato and basil pasta."],
    },
  );
  await setPostLike(deps, ada.id, forecast.id, true);
  await commentOnPost(deps, ada.id, { postId: forecast.id, text: "Perfect for the picnic!" });

  // Calls: one with a transcript and summaries, one group call without.
  at(DAY + 6 * HOUR);
  await endCall(deps, {
    participants: [
      { user: ada.id, summary: "You agreed to bring lemonade; Grace brings the blanket." },
      { user: grace.id, summary: "Ada brings lemonade; you bring the blanket." },
    ],
    duration: 412,
    transcript:
      "Ada: Are we still on for Saturday?\nGrace: Yes! I'll bring the blanket.\nAda: Then I'll bring lemonade.",
  });
  at(3 * HOUR);
  await endCall(deps, {
    participants: [{ user: ada.id }, { user: grace.id }, { user: linus.id }],
    isGroup: true,
    duration: 95,
  });

  // Records and notes to self.
  at(2 * DAY);
  for (const [type, fields] of [
    ["task", { title: "Renew the passport", dueDate: iso(6 * DAY), priority: "high" }],
    ["task", { title: "Return the library books", dueDate: iso(2 * DAY), priority: "normal" }],
    ["reminder", { title: "Call the dentist", reminderTime: iso(DAY) }],
    [
      "event",
      {
        title: "Team lunch",
        startTime: iso(3 * DAY),
        endTime: iso(3 * DAY + HOUR),
        location: "Canteen",
      },
    ],
    [
      "note",
      { title: "Gift ideas", content: "A good umbrella for Grace; a chess book for Linus." },
    ],
  ] as const)
    await createRecord(deps, ada.id, type, fields as never);
  const { info } = await createDeveloperKey(deps, ada.id, {
    scopes: ["self-chat:write"],
    name: "Notes script",
  });
  const me = { keyId: info.id, userId: ada.id, scopes: info.scopes, suspended: false };
  for (const content of ["Parking: level 2, row F.", "Wi-Fi at the cottage: lemonade2026"])
    await postSelfMessage(deps, me, { content });
  clock.set(new Date());
  return { email, travelChat, plannerChat, planner, museum, inboxThread: thread.id };
}

/** An ISO time `ahead` milliseconds from now. */
function iso(ahead: number): string {
  return new Date(Date.now() + ahead).toISOString();
}

/** Shots of a chat scrolled so that this part of the thread is at its top. */
const scrolledTo: Record<string, string> = {
  "chat-start": '[data-testid="chat-messages"] > li',
  "chat-media": '[data-testid="image-open"]',
};

/** Waits until a page shows its content (no skeletons, pictures and fonts loaded). */
async function settle(page: Page) {
  await page.waitForFunction(() => !document.querySelector('[data-testid="skeleton"]'), null, {
    timeout: 15_000,
  });
  await page.waitForFunction(
    () => Array.from(document.images).every((image) => image.complete),
    null,
    { timeout: 15_000 },
  );
  await page.evaluate(() => document.fonts.ready.then(() => undefined));
  await page.waitForTimeout(400);
}

/** Shoots `pages` at both widths in both themes; answers the pages that scroll sideways. */
async function shoot(session: ConsoleSession | null, pages: Record<string, string>) {
  const wide: string[] = [];
  for (const colorScheme of schemes)
    for (const viewport of widths) {
      const suffix = colorScheme === "dark" ? "-dark" : "";
      const context = await newContext(browser, session, viewport, colorScheme);
      const page = await context.newPage();
      for (const [name, url] of Object.entries(pages)) {
        const answer = await page.goto(`${base}${url}`, { waitUntil: "load" });
        if (session && new URL(page.url()).pathname === "/signin")
          throw new Error(`${url} went to sign-in`);
        if (name !== "not-found" && answer?.status() !== 200)
          throw new Error(`${url} answered ${answer?.status()}`);
        await settle(page);
        const scrollTo = scrolledTo[name];
        if (scrollTo) {
          // The thread scrolls inside the page: bring that part of it to the top.
          await page
            .locator(scrollTo)
            .first()
            .evaluate((element) => {
              element.scrollIntoView({ block: "start" });
            });
          await page.waitForTimeout(300);
        }
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        if (overflow > 0 && colorScheme === "light")
          wide.push(`${name} at ${viewport.width} px (${overflow} px too wide)`);
        // A long page is shot whole in a window as tall as it, so bars fixed to the window's
        // bottom stay there; the API reference and the guides are very long, and their first
        // screen says enough.
        const firstScreen = name.startsWith("docs");
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        if (!firstScreen && height > viewport.height)
          await page.setViewportSize({ width: viewport.width, height });
        await page.screenshot({
          path: path.join(out, `${name}-${viewport.width}${suffix}.png`),
          fullPage: !firstScreen,
        });
        await page.setViewportSize(viewport);
        console.error(`  ${name}-${viewport.width}${suffix}.png`);
      }
      await context.close();
    }
  return wide;
}

try {
  const world = await seed();
  mkdirSync(out, { recursive: true });
  const session = await signIn(base, world.email, PASSWORD);
  // The webhook's deliveries are made by the worker: wait until each has had its first try.
  const deadline = Date.now() + 30_000;
  while (received < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));

  const wide = [
    ...(await shoot(null, {
      signin: "/signin",
      signup: "/signup",
      docs: "/docs",
      "docs-quickstart": "/docs/quickstart",
      "docs-mcp": "/docs/mcp",
    })),
    ...(await shoot(session, {
      chats: "/chats",
      chat: `/chats/${world.travelChat}`,
      "chat-start": `/chats/${world.travelChat}`,
      "chat-media": `/chats/${world.travelChat}`,
      "chat-cards": `/chats/${world.plannerChat}`,
      "chats-add": "/chats/add",
      consent: `/chats/add?agent=${world.museum.num}`,
      waiting: "/waiting",
      inbox: "/inbox",
      "inbox-thread": `/inbox/${world.inboxThread}`,
      "inbox-new": "/inbox/new",
      feed: "/feed",
      calls: "/calls",
      tasks: "/records/tasks",
      reminders: "/records/reminders",
      events: "/records/events",
      notes: "/records/notes",
      "self-chat": "/self-chat",
      agents: "/agents",
      agent: `/agents/${world.planner.id}`,
      "agent-tokens": `/agents/${world.planner.id}/tokens`,
      webhook: `/agents/${world.planner.id}/webhook`,
      "agent-decisions": `/agents/${world.planner.id}/decisions`,
      "agent-profile": `/agents/${world.planner.id}/profile`,
      settings: "/settings",
      status: "/agents/status",
      "not-found": "/records/nothing-here",
    })),
  ];
  console.log(`Screenshots in ${out}/`);
  if (wide.length > 0) console.log(`Pages that scroll sideways: ${wide.join("; ")}`);
} finally {
  await run.stop();
  receiver.close();
}
