import { createSocket, type Socket } from "node:dgram";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { CoreError } from "../errors";
import {
  checkWebhookTarget,
  checkWebhookUrl,
  isPublicAddress,
  resolveDeliveryAddress,
} from "./address-policy";

const policy = { allowInsecureHosts: [] as string[] };
const refused = (url: string, p = policy) => {
  try {
    checkWebhookUrl(url, p);
    return false;
  } catch (error) {
    return error instanceof CoreError && error.code === "validation_error";
  }
};

describe("webhook URL policy", () => {
  it("accepts public https URLs", () => {
    expect(checkWebhookUrl("https://hooks.example.com/switchboard?x=1", policy).hostname).toBe(
      "hooks.example.com",
    );
    expect(refused("https://93.184.216.34/hook")).toBe(false);
    expect(refused("https://[2606:4700:4700::1111]/hook")).toBe(false);
  });

  it("refuses http, credentials, overlong URLs and junk", () => {
    for (const url of [
      "http://example.com/h",
      "https://user:pw@example.com/h",
      `https://example.com/${"a".repeat(2000)}`,
      "not a url",
      "ftp://example.com",
    ])
      expect(refused(url), url).toBe(true);
  });

  it("refuses every private, loopback, link-local, CGNAT, unique-local and unspecified range, in any spelling", () => {
    const urls = [
      "https://127.0.0.1/",
      "https://127.8.9.10/",
      "https://10.1.2.3/",
      "https://172.16.0.1/",
      "https://172.31.255.255/",
      "https://192.168.1.1/",
      "https://169.254.169.254/latest/meta-data",
      "https://100.64.0.1/",
      "https://0.0.0.0/",
      "https://224.0.0.1/",
      "https://255.255.255.255/",
      "https://192.0.2.1/",
      "https://2130706433/",
      "https://0x7f000001/",
      "https://0177.0.0.1/",
      "https://0x7f.1/",
      "https://127.1/",
      "https://[::1]/",
      "https://[::]/",
      "https://[fe80::1]/",
      "https://[fd00:ec2::254]/",
      "https://[fc00::1]/",
      "https://[::ffff:127.0.0.1]/",
      "https://[::ffff:7f00:1]/",
      "https://[::ffff:10.0.0.1]/",
      "https://[64:ff9b::a9fe:a9fe]/",
      "https://localhost/",
      "https://api.localhost/",
      "https://metadata.google.internal/",
      "https://printer.local/",
      "https://metadata/",
      "https://intranet/",
    ];
    for (const url of urls) expect(refused(url), url).toBe(true);
  });

  it("lets WEBHOOK_ALLOW_INSECURE_HOSTS through over http, for exactly those hosts", () => {
    const dev = { allowInsecureHosts: ["127.0.0.1", "localhost"] };
    expect(refused("http://127.0.0.1:9000/hook", dev)).toBe(false);
    expect(refused("http://localhost:9000/hook", dev)).toBe(false);
    expect(refused("http://127.0.0.2:9000/hook", dev)).toBe(true);
  });

  it("refuses localhost and local names written with the root's trailing dot", () => {
    for (const url of [
      "https://localhost./",
      "https://LOCALHOST../",
      "https://api.localhost./",
      "https://printer.local./",
      "https://metadata.google.internal./",
      "https://intranet./",
    ])
      expect(refused(url), url).toBe(true);
    expect(refused("https://hooks.example.com./h")).toBe(false);
  });

  // Address, public?
  const addresses: [string, boolean][] = [
    ["8.8.8.8", true],
    ["93.184.216.34", true],
    ["2606:4700:4700::1111", true],
    ["2a00:1450:4001:82b::200e", true],
    ["::ffff:8.8.8.8", true],
    ["2002:0808:0808::1", true], // 6to4 of a public address
    ["::ffff:0:8.8.8.8", true], // RFC 6145 translated, public inside
    ["127.0.0.1", false],
    ["10.0.0.1", false],
    ["172.16.0.1", false],
    ["192.168.0.1", false],
    ["169.254.169.254", false],
    ["100.64.0.1", false],
    ["0.0.0.0", false],
    ["192.0.0.8", false],
    ["192.0.2.1", false],
    ["198.18.0.1", false],
    ["224.0.0.1", false],
    ["255.255.255.255", false],
    ["240.0.0.1", false],
    ["::", false],
    ["::1", false],
    ["fe80::1", false],
    ["fe80::1%eth0", false],
    ["fc00::1", false],
    ["fd00:ec2::254", false],
    ["ff02::1", false],
    ["100::1", false],
    ["2001:db8::1", false],
    ["::ffff:127.0.0.1", false],
    ["::ffff:192.168.0.1", false],
    ["::ffff:0:10.0.0.1", false], // RFC 6145 of a private address
    ["::127.0.0.1", false], // IPv4-compatible
    ["::8.8.8.8", false], // IPv4-compatible, even of a public address
    ["::a9fe:a9fe", false],
    ["64:ff9b::a9fe:a9fe", false], // NAT64 well-known prefix
    ["64:ff9b::8.8.8.8", false],
    ["64:ff9b:1::a00:1", false], // NAT64 local-use prefix
    ["fec0::1", false], // site-local
    ["fefe::1", false],
    ["2002:7f00:0001::1", false], // 6to4 of 127.0.0.1
    ["2002:0a00:0001::1", false], // 6to4 of 10.0.0.1
    ["2002:a9fe:a9fe::", false], // 6to4 of the metadata address
    ["2001:0:4136:e378:8000:63bf:3fff:fdd2", false], // Teredo
    ["not-an-ip", false],
    ["0x7f.1", false],
    ["", false],
  ];
  it.each(addresses)("classifies %s as public: %s", (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
  it.each(addresses.filter(([address]) => address.includes(":") && !address.includes("%")))(
    "judges https://[%s]/ the same at configuration (public: %s)",
    (address, expected) => {
      expect(refused(`https://[${address}]/`)).toBe(!expected);
    },
  );

  it("gives up on a resolver that hangs after resolveTimeoutMs, and refuses private answers", async () => {
    const hanging = () => new Promise<never>(() => {});
    const started = Date.now();
    await expect(
      resolveDeliveryAddress(new URL("https://hooks.example.com/h"), {
        ...policy,
        resolveTimeoutMs: 300,
        lookup: hanging,
      }),
    ).rejects.toThrow(/did not resolve within 300 ms/);
    expect(Date.now() - started).toBeLessThan(3000);
    const answering = (address: string) => async () => [{ address, family: 6 }];
    for (const [address, expected] of addresses.filter(([a]) => a.includes(":"))) {
      const resolved = resolveDeliveryAddress(new URL("https://hooks.example.com/h"), {
        ...policy,
        lookup: answering(address),
      });
      if (expected) await expect(resolved, address).resolves.toMatchObject({ address });
      else await expect(resolved, address).rejects.toThrow(/^the URL is not allowed$/);
    }
  });

  it("refuses a name that resolves to a private address at delivery time", async () => {
    await expect(resolveDeliveryAddress(new URL("https://localhost/hook"), policy)).rejects.toThrow(
      /^the URL is not allowed$/,
    );
    await expect(
      resolveDeliveryAddress(new URL("http://localhost/hook"), {
        allowInsecureHosts: ["localhost"],
      }),
    ).resolves.toMatchObject({
      address: expect.stringMatching(/^(127\.0\.0\.1|::1)$/),
    });
  });
});

/**
 * A real DNS server on loopback (UDP): answers every A query with `a` (none: NXDOMAIN-free empty
 * answer), AAAA with nothing; `silent` never answers. Counts the queries it got.
 */
async function dnsServer(a: string[] | "silent") {
  const socket: Socket = createSocket("udp4");
  let queries = 0;
  socket.on("message", (query, peer) => {
    queries += 1;
    if (a === "silent") return;
    // Header: same id, response + recursion available, one question, N answers.
    const questionEnd = query.indexOf(0, 12) + 5;
    const question = query.subarray(12, questionEnd);
    const type = query.readUInt16BE(questionEnd - 4);
    const answers = type === 1 ? a : [];
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(0x8180, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map((address) => {
      const record = Buffer.alloc(16);
      record.writeUInt16BE(0xc00c, 0); // the question's name
      record.writeUInt16BE(1, 2); // A
      record.writeUInt16BE(1, 4); // IN
      record.writeUInt32BE(60, 6);
      record.writeUInt16BE(4, 10);
      address.split(".").forEach((octet, i) => {
        record[12 + i] = Number(octet);
      });
      return record;
    });
    socket.send(Buffer.concat([header, question, ...records]), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  afterAll(() => socket.close());
  return {
    servers: [`127.0.0.1:${(socket.address() as AddressInfo).port}`],
    queries: () => queries,
  };
}

describe("resolving with the service's own resolver", () => {
  it("refuses at configuration a host whose DNS answer is private, and accepts a public one", async () => {
    const privateDns = await dnsServer(["10.0.0.5", "192.168.1.9"]);
    const target = checkWebhookTarget(new URL("https://hooks.internal-corp.example/h"), {
      ...policy,
      dnsServers: privateDns.servers,
      resolveTimeoutMs: 2000,
    });
    await expect(target).rejects.toMatchObject({
      code: "validation_error",
      // Says no more than "not allowed": which names resolve where is not the caller's to learn.
      details: { issues: [{ path: "url", message: "the URL is not allowed" }] },
    });
    expect(privateDns.queries()).toBeGreaterThan(0);

    const mixedDns = await dnsServer(["93.184.216.34", "10.0.0.5"]);
    await expect(
      checkWebhookTarget(new URL("https://mixed.example/h"), {
        ...policy,
        dnsServers: mixedDns.servers,
      }),
    ).rejects.toMatchObject({ code: "validation_error" });

    const publicDns = await dnsServer(["93.184.216.34"]);
    const publicPolicy = { ...policy, dnsServers: publicDns.servers };
    await expect(
      checkWebhookTarget(new URL("https://hooks.example/h"), publicPolicy),
    ).resolves.toBeUndefined();
    await expect(
      resolveDeliveryAddress(new URL("https://hooks.example/h"), publicPolicy),
    ).resolves.toEqual({ address: "93.184.216.34", family: 4 });
    // A name with no records yet is accepted at configuration; deliveries resolve it again.
    const emptyDns = await dnsServer([]);
    await expect(
      checkWebhookTarget(new URL("https://later.example/h"), {
        ...policy,
        dnsServers: emptyDns.servers,
      }),
    ).resolves.toBeUndefined();
  });

  it("a DNS server that never answers fails the delivery's resolution within its timeout", async () => {
    const silent = await dnsServer("silent");
    const started = Date.now();
    await expect(
      resolveDeliveryAddress(new URL("https://hooks.example/h"), {
        ...policy,
        dnsServers: silent.servers,
        resolveTimeoutMs: 400,
      }),
    ).rejects.toThrow(/resolve/);
    expect(Date.now() - started).toBeLessThan(2000);
    // The resolver asked the server itself (c-ares, not the system's getaddrinfo).
    expect(silent.queries()).toBeGreaterThan(0);
  });
});
