import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { AgentSendMessageRequest } from "@switchboard/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config";
import { addContact } from "../contacts/contacts";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { getAgentUsage } from "../limits/charge-send";
import { pngBytes, webmBytes } from "../objects/test-media";
import { createTestDeps } from "../testing";
import { getPersonMessageMedia } from "./get-person-message-media";
import { sendAgentMessage } from "./send-agent-message";

let t: Awaited<ReturnType<typeof createTestDeps>>;
let server: Server;
let origin: string;
/** Every path the agent's media server was asked for. */
const asked: string[] = [];

const ELEVEN_MB = 11 * 1024 * 1024;

beforeAll(async () => {
  t = await createTestDeps();
  // The agent's media server: real HTTP on loopback.
  server = createServer((request, response) => {
    const path = request.url ?? "/";
    asked.push(path);
    const answer = (status: number, type: string, body: Buffer | string) => {
      response.writeHead(status, { "Content-Type": type });
      response.end(body);
    };
    if (path === "/a.png") return answer(200, "text/html", pngBytes()); // the type lies
    if (path === "/clip.webm") return answer(200, "video/webm", webmBytes());
    if (path === "/page") return answer(200, "image/png", "<script>alert(1)</script>");
    if (path === "/missing") return answer(404, "text/plain", "no");
    if (path === "/hop") {
      response.writeHead(302, { Location: "/a.png" });
      return response.end();
    }
    if (path === "/loop") {
      response.writeHead(302, { Location: "/loop" });
      return response.end();
    }
    if (path === "/inward") {
      response.writeHead(302, { Location: "https://10.0.0.1/a.png" });
      return response.end();
    }
    // Redirects to what no URL parser accepts, and to a URL carrying credentials.
    const redirects: Record<string, string> = {
      "/to-bracket": "http://[",
      "/to-slashes": "//",
      "/to-nul": "http://%00/",
      "/to-credentials": `${origin}/a.png`.replace("//", "//user:secret@"),
    };
    if (redirects[path]) {
      response.writeHead(302, { Location: redirects[path] });
      return response.end();
    }
    if (path === "/big") {
      response.writeHead(200, { "Content-Type": "image/png", "Content-Length": ELEVEN_MB });
      return response.end(Buffer.concat([pngBytes(), Buffer.alloc(ELEVEN_MB - pngBytes().length)]));
    }
    if (path === "/big-chunked") {
      response.writeHead(200, { "Content-Type": "image/png" });
      response.write(pngBytes());
      const chunk = Buffer.alloc(1024 * 1024);
      let sent = 0;
      const more = () => {
        while (sent < 11 && !response.destroyed) {
          sent += 1;
          if (!response.write(chunk)) return void response.once("drain", more);
        }
        response.end();
      };
      return more();
    }
    if (path === "/slow") return; // never answers
    answer(404, "text/plain", "no");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await t.close();
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error) => {
      if (error instanceof CoreError) return error;
      throw error;
    },
  );

/** An agent a person added, sending with these settings. */
async function chat(env: Record<string, string> = {}) {
  const deps: CoreDeps = {
    ...t.deps,
    config: loadConfig({
      DATABASE_URL: t.config.DATABASE_URL,
      MEDIA_ALLOW_INSECURE_HOSTS: "127.0.0.1",
      MEDIA_FETCH_TIMEOUT_MS: "500",
      ...env,
    }),
  };
  const owner = await createUser(deps, {});
  const person = await createUser(deps, {});
  const agent = await createAgent(deps, {
    ownerId: owner.id,
    displayName: "Pictures",
    requestedScopes: ["messages:write"],
  });
  await addContact(deps, person.id, agent.id, ["messages:write"]);
  const send = (request: Omit<AgentSendMessageRequest, "to">) =>
    sendAgentMessage(deps, { agentId: agent.id }, { to: person.num, ...request });
  const image = (url: string) => send({ type: "image", content: "look", imageData: url });
  return { deps, agent, person, send, image };
}

describe("image and video URLs are fetched at send time", () => {
  it("stores the media (by its content, not its declared type): the browser never asks the agent's server", async () => {
    const { deps, person, send, image } = await chat();
    asked.length = 0;
    const { message } = await image(`${origin}/a.png`);
    expect(message.image?.data).toMatch(/^\/objects\//);
    const stored = await getPersonMessageMedia(deps, person.id, message.id);
    expect([stored.mimeType, stored.bytes.equals(pngBytes())]).toEqual(["image/png", true]);

    const { message: clip } = await send({
      type: "video",
      content: "watch",
      videoData: `${origin}/clip.webm`,
      thumbnailData: `${origin}/hop`,
    });
    expect(clip.video).toMatchObject({
      data: expect.stringMatching(/^\/objects\//),
      thumbnail: expect.stringMatching(/^\/objects\//),
    });
    expect(asked.sort()).toEqual(["/a.png", "/a.png", "/clip.webm", "/hop"]);
  });

  it("answers precise codes naming the field: 422 unreachable, 415 not media, 413 too large", async () => {
    const { image, send } = await chat();
    const cases: [string, string, RegExp][] = [
      [`${origin}/missing`, "media_fetch_failed", /answered 404/],
      [`${origin}/slow`, "media_fetch_failed", /no answer within 500 ms/],
      [`${origin}/loop`, "media_fetch_failed", /redirects/],
      [`${origin}/inward`, "media_fetch_failed", /^the URL is not allowed$/],
      [`${origin}/to-bracket`, "media_fetch_failed", /^redirects to an invalid URL$/],
      [`${origin}/to-slashes`, "media_fetch_failed", /^redirects to an invalid URL$/],
      [`${origin}/to-nul`, "media_fetch_failed", /^redirects to an invalid URL$/],
      [`${origin}/to-credentials`, "media_fetch_failed", /must not contain credentials/],
      [
        `${origin}/a.png`.replace("//", "//user:secret@"),
        "media_fetch_failed",
        /must not contain credentials/,
      ],
      [`${origin}/page`, "unsupported_media", /is not a png, jpeg, gif or webp image/],
      [`${origin}/big`, "media_too_large", /larger than 10 MB/],
      [`${origin}/big-chunked`, "media_too_large", /larger than 10 MB/],
    ];
    for (const [url, code, message] of cases) {
      const error = await failure(image(url));
      expect([url, error?.code, error?.details.issues]).toEqual([
        url,
        code,
        [{ path: "imageData", message: expect.stringMatching(message) }],
      ]);
    }
    const video = await failure(
      send({ type: "video", content: "v", videoData: `${origin}/a.png` }),
    );
    expect(video?.details.issues).toEqual([
      { path: "videoData", message: "is not an mp4, mov, webm or ogg video" },
    ]);
  });

  it("fetches from private addresses and over http only with MEDIA_ALLOW_INSECURE_HOSTS", async () => {
    const { image } = await chat({ MEDIA_ALLOW_INSECURE_HOSTS: "" });
    asked.length = 0;
    const port = new URL(origin).port;
    expect((await failure(image(`${origin}/a.png`)))?.code).toBe("validation_error");
    // A private address, a local name and a name that does not resolve: one answer, so the
    // agent cannot learn which names the service's DNS knows.
    for (const url of [
      `https://127.0.0.1:${port}/a.png`,
      `https://localhost:${port}/a.png`,
      "https://no-such-host.invalid/a.png",
    ])
      expect(await failure(image(url))).toMatchObject({
        code: "media_fetch_failed",
        message: "imageData: the URL is not allowed",
      });
    expect(asked).toEqual([]);
  });

  it("fetches nothing for a refused or rate-limited send; a failed fetch keeps its charge", async () => {
    const { image, agent, deps } = await chat({ LIMIT_PER_RECIPIENT_PER_MIN: "2" });
    const stranger = await createUser(deps, {});
    asked.length = 0;
    const refused = sendAgentMessage(
      deps,
      { agentId: agent.id },
      { to: stranger.num, type: "image", content: "x", imageData: `${origin}/a.png` },
    );
    expect((await failure(refused))?.code).toBe("not_a_contact");
    expect((await failure(image(`${origin}/missing`)))?.code).toBe("media_fetch_failed");
    expect((await getAgentUsage(deps, agent.id)).usage.messages).toBe(1);
    expect((await failure(image(`${origin}/a.png`)))?.code).toBeUndefined();
    expect((await failure(image(`${origin}/a.png`)))?.code).toBe("conversation_rate_limited");
    expect(asked).toEqual(["/missing", "/a.png"]);
  });
});
