import {
  createDecipheriv,
  createECDH,
  createPublicKey,
  hkdfSync,
  randomBytes,
  verify,
} from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";

// For tests that play a browser and its push service (core's, and the e2e specs'): the browser's
// keys, the push decrypted as it decrypts it, and the VAPID token checked as a push service does.

export type BrowserKeys = ReturnType<typeof browserKeys>;

/** A browser's side of a subscription: its own P-256 key pair and auth secret (RFC 8291). */
export function browserKeys() {
  const ecdh = createECDH("prime256v1");
  ecdh.generateKeys();
  const auth = randomBytes(16);
  return {
    ecdh,
    auth,
    keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") },
  };
}

/** RFC 8291 aes128gcm, decrypted the way a browser does. */
export function decryptPush(body: Buffer, browser: BrowserKeys): unknown {
  const salt = body.subarray(0, 16);
  const idlen = body[20] ?? 0;
  const serverKey = body.subarray(21, 21 + idlen);
  const content = body.subarray(21 + idlen);
  const secret = browser.ecdh.computeSecret(serverKey);
  const info = Buffer.concat([
    Buffer.from("WebPush: info\0"),
    browser.ecdh.getPublicKey(),
    serverKey,
  ]);
  const ikm = Buffer.from(hkdfSync("sha256", secret, browser.auth, info, 32));
  const cek = Buffer.from(hkdfSync("sha256", ikm, salt, "Content-Encoding: aes128gcm\0", 16));
  const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, "Content-Encoding: nonce\0", 12));
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(content.subarray(content.length - 16));
  const padded = Buffer.concat([
    decipher.update(content.subarray(0, content.length - 16)),
    decipher.final(),
  ]);
  const end = padded.lastIndexOf(2);
  return JSON.parse(padded.subarray(0, end).toString("utf8"));
}

/** Checks `Authorization: vapid t=<ES256 JWT>, k=<key>`; answers the JWT's claims. */
export function vapidClaims(headers: IncomingHttpHeaders, publicKey: string) {
  const match = /^vapid t=([^,]+), k=(.+)$/.exec(headers.authorization ?? "");
  if (!match) throw new Error(`no VAPID authorization: ${headers.authorization}`);
  const [, token = "", key = ""] = match;
  if (key !== publicKey) throw new Error(`VAPID key ${key}, expected ${publicKey}`);
  const [head = "", claims = "", signature = ""] = token.split(".");
  const { alg } = JSON.parse(Buffer.from(head, "base64url").toString()) as { alg?: string };
  if (alg !== "ES256") throw new Error(`VAPID token signed with ${alg}, not ES256`);
  const raw = Buffer.from(key, "base64url");
  const jwk = {
    kty: "EC",
    crv: "P-256",
    x: raw.subarray(1, 33).toString("base64url"),
    y: raw.subarray(33, 65).toString("base64url"),
  };
  const valid = verify(
    "sha256",
    Buffer.from(`${head}.${claims}`),
    { key: createPublicKey({ key: jwk, format: "jwk" }), dsaEncoding: "ieee-p1363" },
    Buffer.from(signature, "base64url"),
  );
  if (!valid) throw new Error("the VAPID token's signature does not verify with its key");
  return JSON.parse(Buffer.from(claims, "base64url").toString()) as {
    aud: string;
    exp: number;
    sub: string;
  };
}
