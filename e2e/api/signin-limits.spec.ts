import { ownService } from "../support/own-service";
import { expect, test } from "../support/test";

/**
 * Console sign-up and sign-in are limited per client network, and the network is the socket's
 * peer: an X-Forwarded-For a client makes up changes nothing (no proxy is trusted by default).
 * A service of its own, on a database of its own, so no other spec's sign-ups count here.
 */
test.describe.configure({ mode: "serial" });
const base = ownService("signinLimits", {
  LIMIT_SIGNUPS_PER_IP: "3",
  LIMIT_SIGNIN_ATTEMPTS_PER_IP: "4",
});

const spoofed = (n: number) => ({ "X-Forwarded-For": `198.51.100.${n}` });
const unique = () => Math.random().toString(36).slice(2, 10);

test("sign-ups from one network stop at the limit, whatever address the client claims", async ({
  request,
}) => {
  const signUp = (n: number) =>
    request.post(`${base}/api/trpc/auth.signUp`, {
      headers: { "Content-Type": "application/json", ...spoofed(n) },
      data: {
        json: {
          displayName: `Bot ${n}`,
          email: `bot-${unique()}@example.com`,
          password: "long enough",
        },
      },
    });
  for (let n = 1; n <= 3; n++) expect((await signUp(n)).status()).toBe(200);
  const refused = await signUp(4);
  expect(refused.status()).toBe(429);
  expect((await refused.json()).error.json).toMatchObject({
    message: expect.stringMatching(
      /^Too many sign-ups from your network\. Try again in \d+ minutes\.$/,
    ),
    data: { code: "rate_limited", retryAfterSeconds: expect.any(Number) },
  });
});

test("sign-in attempts from one network stop at the limit across emails", async ({ request }) => {
  const signIn = async (n: number) => {
    const { csrfToken } = await (await request.get(`${base}/api/auth/csrf`)).json();
    const answer = await request.post(`${base}/api/auth/callback/credentials`, {
      headers: spoofed(n),
      form: {
        email: `someone-${unique()}@example.com`,
        password: "a guess",
        csrfToken,
        json: "true",
      },
      maxRedirects: 0,
    });
    const { url } = await answer.json();
    return new URL(url).searchParams.get("error");
  };
  for (let n = 1; n <= 4; n++) expect(await signIn(n)).toBe("CredentialsSignin");
  expect(await signIn(5)).toMatch(
    /^Too many sign-in attempts from your network\. Try again in \d+ minutes\.$/,
  );
});
