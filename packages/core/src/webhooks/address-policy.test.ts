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

  it("classifies addresses", () => {
    expect(isPublicAddress("8.8.8.8")).toBe(true);
    expect(isPublicAddress("::ffff:8.8.8.8")).toBe(true);
    expect(isPublicAddress("::ffff:192.168.0.1")).toBe(false);
    expect(isPublicAddress("not-an-ip")).toBe(false);
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
