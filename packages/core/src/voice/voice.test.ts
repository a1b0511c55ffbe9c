import { mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config";
import { addContact } from "../contacts/contacts";
import type { CoreDeps } from "../deps";
import { CoreError } from "../errors";
import { checkHealth } from "../health";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { getMessageAudio } from "../messaging/get-message-audio";
import { sendAgentMessage } from "../messaging/send-agent-message";
import { sniffAudio } from "../objects/sniff-media";
import { createTestDeps } from "../testing";
import { speechSetup } from "./speech-engine";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

const codeOf = (promise: Promise<unknown>) =>
  promise.then(
    () => "ok",
    (error) => {
      if (error instanceof CoreError) return `${error.code}: ${error.message}`;
      throw error;
    },
  );

/** A folder holding only the named programs (links to the machine's own), to use as PATH. */
function pathWith(...programs: string[]): string {
  const dir = mkdtempSync(path.join(tmpdir(), "path-"));
  for (const name of programs) {
    const real = speechSetup({ PATH: t.config.PATH, TTS_COMMAND: undefined });
    const target =
      name === "ffmpeg"
        ? (real.encoding.format === "ogg/opus" && real.encoding.ffmpeg) || ""
        : (real.engine?.program ?? "");
    symlinkSync(target, path.join(dir, name));
  }
  return dir;
}

async function voiceChat(env: Record<string, string> = {}) {
  const deps: CoreDeps = {
    ...t.deps,
    config: loadConfig({ DATABASE_URL: t.config.DATABASE_URL, ...env }),
  };
  const owner = await createUser(deps, {});
  const person = await createUser(deps, {});
  const agent = await createAgent(deps, {
    ownerId: owner.id,
    displayName: "Speaker",
    requestedScopes: ["messages:read", "messages:write"],
  });
  await addContact(deps, person.id, agent.id, ["messages:read", "messages:write"]);
  const speak = (text: string) =>
    sendAgentMessage(deps, { agentId: agent.id }, { to: person.num, type: "voice", tts: { text } });
  return { deps, agent, speak };
}

describe("voice by default", () => {
  it("speaks with espeak-ng when TTS_COMMAND is unset, stored as Opus in Ogg (ffmpeg present)", async () => {
    const { deps, agent, speak } = await voiceChat();
    expect(await checkHealth(deps)).toMatchObject({
      details: {
        speech: { engine: "espeak-ng", audio: "ogg/opus" },
        transcription: { engine: "pocketsphinx" },
      },
    });
    const { message } = await speak("Your table for two is booked for eight o'clock.");
    expect(message).toMatchObject({
      type: "voice",
      transcript: "Your table for two is booked for eight o'clock.",
      audio: { data: expect.stringMatching(/^\/objects\//) },
    });
    const seconds = Number(message.audio?.duration);
    expect(seconds).toBeGreaterThan(1);
    expect(seconds).toBeLessThan(10);
    const audio = await getMessageAudio(deps, agent.id, message.id);
    expect(audio.mimeType).toBe("audio/ogg");
    expect(audio.bytes.subarray(28, 36).toString("latin1")).toBe("OpusHead");
  });

  it("stores espeak-ng's WAV, with real sizes in its header, when ffmpeg is missing", async () => {
    const { deps, agent, speak } = await voiceChat({ PATH: pathWith("espeak-ng") });
    expect(speechSetup(deps.config)).toMatchObject({
      engine: { source: "espeak-ng" },
      encoding: { format: "wav" },
    });
    const { message } = await speak("Hello there");
    const { bytes, mimeType } = await getMessageAudio(deps, agent.id, message.id);
    expect(mimeType).toBe("audio/wav");
    expect(sniffAudio(bytes)).toBe("audio/wav");
    // espeak-ng streams a placeholder size; the stored file says how long it really is.
    expect(bytes.readUInt32LE(4)).toBe(bytes.length - 8);
    const byteRate = bytes.readUInt32LE(28);
    expect(bytes.readUInt32LE(40)).toBe(bytes.length - 44);
    expect(message.audio?.duration).toBe(((bytes.length - 44) / byteRate).toFixed(1));
  });

  it("answers 503 tts_unavailable only when no engine exists", async () => {
    const { deps, speak } = await voiceChat({ PATH: pathWith("ffmpeg") });
    expect(await checkHealth(deps)).toMatchObject({
      details: { speech: { engine: null, audio: "ogg/opus" }, transcription: { engine: null } },
    });
    expect(await codeOf(speak("hello"))).toMatch(/^tts_unavailable/);
  });

  it("answers 502 tts_failed when the engine fails or passes its time limit", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tts-slow-"));
    const slow = path.join(dir, "slow.mjs");
    writeFileSync(slow, "process.stdin.resume(); setTimeout(() => {}, 60_000);");
    const late = await voiceChat({ TTS_COMMAND: `node ${slow}`, TTS_TIMEOUT_MS: "300" });
    expect(await codeOf(late.speak("hello"))).toMatch(/^tts_failed: .*no answer within 0.3 s/);
    const bad = await voiceChat({ TTS_COMMAND: "node -e process.exit(3)" });
    expect(await codeOf(bad.speak("hello"))).toMatch(/^tts_failed: .*exited/);
  });
});
