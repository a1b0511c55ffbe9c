import { describe, expect, it } from "vitest";
import { CoreError } from "../errors";
import { checkWebhookUrl, isPublicAddress, resolveDeliveryAddress } from "./address-policy";

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
      else await expect(resolved, address).rejects.toThrow(/non-public/);
    }
  });

  it("refuses a name that resolves to a private address at delivery time", async () => {
    await expect(resolveDeliveryAddress(new URL("https://localhost/hook"), policy)).rejects.toThrow(
      /non-public/,
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
