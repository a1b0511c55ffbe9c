import type { AgentScope } from "@switchboard/contract";
import { schema } from "@switchboard/db";
import { inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addContact, setGrant } from "../contacts/contacts";
import type { CoreError } from "../errors";
import { createAgent } from "../identity/agents";
import { createUser } from "../identity/users";
import { getMessageAudio } from "../messaging/get-message-audio";
import { sendAgentMessage } from "../messaging/send-agent-message";
import { sendPersonMessage } from "../messaging/send-person-message";
import { codeOf, createTestDeps } from "../testing";
import { objectIdFromPath, postgresObjectStore } from "./object-store";
import { dataUrl, oggBytes, pngBytes, wavBytes } from "./test-media";

let t: Awaited<ReturnType<typeof createTestDeps>>;
beforeAll(async () => {
  t = await createTestDeps();
});
afterAll(() => t.close());

async function pair(grant: AgentScope[] = ["messages:read", "messages:write"]) {
  const owner = await createUser(t.deps, {});
  const person = await createUser(t.deps, { displayName: "Pat" });
  const agent = await createAgent(t.deps, {
    ownerId: owner.id,
    displayName: "Agent",
    requestedScopes: ["messages:read", "messages:write"],
  });
  const { conversationId } = await addContact(t.deps, person.id, agent.id, grant);
  return { person, agent, conversationId };
}

describe("reusing an /objects/... path", () => {
  it("an agent reuses a person's media only while that person grants it messages:read", async () => {
    const { person, agent, conversationId } = await pair();
    const { message } = await sendPersonMessage(t.deps, person.id, agent.id, {
      type: "image",
      imageData: dataUrl("image/png", pngBytes()),
    });
    const path = message.image?.data as string;
    const resend = () =>
      sendAgentMessage(
        t.deps,
        { agentId: agent.id },
        { conversationId, type: "image", imageData: path },
      );
    expect(await codeOf(resend())).toBe("ok");
    await setGrant(t.deps, person.id, agent.id, ["messages:write"]);
    expect(await codeOf(resend())).toBe("validation_error");
  });

  it("an agent's own note carrying a person's audio needs that person's grant to be read", async () => {
    const { person, agent, conversationId } = await pair();
    const { message: note } = await sendPersonMessage(t.deps, person.id, agent.id, {
      type: "voice",
      audioData: dataUrl("audio/ogg", oggBytes()),
      audioDuration: "2",
    });
    const { message: forwarded } = await sendAgentMessage(
      t.deps,
      { agentId: agent.id },
      { conversationId, type: "voice", audioData: note.audio?.data, audioDuration: "2" },
    );
    const { message: own } = await sendAgentMessage(
      t.deps,
      { agentId: agent.id },
      { conversationId, type: "voice", audioData: dataUrl("audio/wav", wavBytes()) },
    );
    expect(await codeOf(getMessageAudio(t.deps, agent.id, forwarded.id))).toBe("ok");
    await setGrant(t.deps, person.id, agent.id, ["messages:write"]);
    expect(await codeOf(getMessageAudio(t.deps, agent.id, note.id))).toBe("scope_not_granted");
    expect(await codeOf(getMessageAudio(t.deps, agent.id, forwarded.id))).toBe("scope_not_granted");
    // Its own audio needs no grant.
    expect(await codeOf(getMessageAudio(t.deps, agent.id, own.id))).toBe("ok");
  });

  it("an agent never uses another account's object it was not sent", async () => {
    const a = await pair();
    const b = await pair();
    const { message } = await sendAgentMessage(
      t.deps,
      { agentId: b.agent.id },
      {
        conversationId: b.conversationId,
        type: "image",
        imageData: dataUrl("image/png", pngBytes()),
      },
    );
    const { message: personal } = await sendPersonMessage(t.deps, b.person.id, b.agent.id, {
      type: "voice",
      audioData: dataUrl("audio/ogg", oggBytes()),
      audioDuration: "1",
    });
    expect(
      await codeOf(
        sendAgentMessage(
          t.deps,
          { agentId: a.agent.id },
          { conversationId: a.conversationId, type: "image", imageData: message.image?.data },
        ),
      ),
    ).toBe("validation_error");
    expect(
      await codeOf(
        sendAgentMessage(
          t.deps,
          { agentId: a.agent.id },
          {
            conversationId: a.conversationId,
            type: "voice",
            audioData: personal.audio?.data,
            audioDuration: "1",
          },
        ),
      ),
    ).toBe("invalid_audio");
  });
});

describe("storage quotas", () => {
  let q: Awaited<ReturnType<typeof createTestDeps>>;
  beforeAll(async () => {
    q = await createTestDeps({
      env: { LIMIT_MEDIA_BYTES_PER_AGENT: "4000", LIMIT_MEDIA_BYTES_PER_OWNER: "5000" },
    });
  });
  afterAll(() => q.close());
  const note = dataUrl("audio/wav", wavBytes()); // 1644 bytes

  async function agentOf(ownerId: string) {
    const person = await createUser(q.deps, {});
    const agent = await createAgent(q.deps, {
      ownerId,
      displayName: "Uploader",
      requestedScopes: ["messages:write"],
    });
    const { conversationId } = await addContact(q.deps, person.id, agent.id, ["messages:write"]);
    const send = () =>
      sendAgentMessage(
        q.deps,
        { agentId: agent.id },
        { conversationId, type: "voice", audioData: note, audioDuration: "1" },
      );
    return { agent, send };
  }

  it("holds an agent's and an owner's stored bytes; deleted objects free their room", async () => {
    const owner = await createUser(q.deps, {});
    const one = await agentOf(owner.id);
    const two = await agentOf(owner.id);
    expect(await codeOf(one.send())).toBe("ok");
    expect(await codeOf(one.send())).toBe("ok");
    const refused = await one.send().catch((error: CoreError) => error);
    expect(refused).toMatchObject({ code: "storage_quota_exceeded" });
    expect((refused as CoreError).message).toContain("this agent's media quota of 4000 bytes");
    const { message } = await two.send(); // 4932 bytes for the owner
    expect((await two.send().catch((error: CoreError) => error)).message).toContain(
      "its owner's media quota of 5000 bytes",
    );
    await postgresObjectStore.delete(
      q.deps.db,
      objectIdFromPath(message.audio?.data as string) as string,
      q.clock.now(),
    );
    expect(await codeOf(two.send())).toBe("ok");
  });

  it("a refused upload stores nothing, and concurrent uploads cannot pass a quota together", async () => {
    const owner = await createUser(q.deps, {});
    const agents = await Promise.all(Array.from({ length: 5 }, () => agentOf(owner.id)));
    const codes = await Promise.all(agents.map(({ send }) => codeOf(send())));
    expect(codes.filter((code) => code === "ok")).toHaveLength(3); // 3 × 1644 of 5000
    expect(codes.filter((code) => code === "storage_quota_exceeded")).toHaveLength(2);
    const stored = await q.deps.db
      .select()
      .from(schema.objects)
      .where(
        inArray(
          schema.objects.ownerId,
          agents.map(({ agent }) => agent.id),
        ),
      );
    expect(stored).toHaveLength(3);
  });
});

describe("document types", () => {
  const html = Buffer.from("<!doctype html><script>parent.pwned = 1</script>");
  const svg = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
  );
  const xml = Buffer.from(
    '<?xml version="1.0"?><x:script xmlns:x="http://www.w3.org/1999/xhtml"/>',
  );
  const zip = Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]);
  // Declared type, bytes → the type stored and carried by the message.
  const cases: [string, Buffer, string][] = [
    ["text/html", html, "application/octet-stream"],
    ["application/xhtml+xml", html, "application/octet-stream"],
    ["image/svg+xml", svg, "application/octet-stream"],
    ["text/xml", xml, "application/octet-stream"],
    ["application/xml", xml, "application/octet-stream"],
    ["application/javascript", Buffer.from("alert(1)"), "application/octet-stream"],
    ["text/plain", html, "text/plain"],
    ["text/csv", Buffer.from("a,b\n1,2\n"), "text/csv"],
    ["text/plain", Buffer.from([0x00, 0xff, 0xfe]), "application/octet-stream"],
    ["application/pdf", Buffer.from("%PDF-1.7\n"), "application/pdf"],
    ["text/html", Buffer.from("%PDF-1.7\n"), "application/pdf"],
    ["image/png", pngBytes(), "image/png"],
    ["image/svg+xml", pngBytes(), "image/png"],
    ["application/zip", zip, "application/zip"],
    [
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      zip,
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ],
    ["text/html", zip, "application/zip"],
    ["application/octet-stream", Buffer.from("whatever"), "application/octet-stream"],
  ];
  it.each(cases)(
    "a document declared %s is stored as a passive type",
    async (declared, bytes, stored) => {
      const { agent, conversationId } = await pair();
      const { message } = await sendAgentMessage(
        t.deps,
        { agentId: agent.id },
        {
          conversationId,
          type: "document",
          documentData: dataUrl(declared, bytes),
          documentName: "file.bin",
          documentMimeType: declared,
        },
      );
      expect(message.document).toMatchObject({ name: "file.bin", mimeType: stored });
      const object = await postgresObjectStore.head(
        t.deps.db,
        objectIdFromPath(message.document?.data as string) as string,
      );
      expect(object?.mimeType).toBe(stored);
    },
  );

  it("a document given as an https URL carries only a passive declared type", async () => {
    const { agent, conversationId } = await pair();
    const send = (documentMimeType: string) =>
      sendAgentMessage(
        t.deps,
        { agentId: agent.id },
        {
          conversationId,
          type: "document",
          documentData: "https://files.example.com/a",
          documentName: "a",
          documentMimeType,
        },
      );
    expect((await send("text/html")).message.document?.mimeType).toBe("application/octet-stream");
    expect((await send("image/svg+xml")).message.document?.mimeType).toBe(
      "application/octet-stream",
    );
    expect((await send("application/pdf")).message.document?.mimeType).toBe("application/pdf");
  });
});
