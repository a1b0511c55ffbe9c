import { type APIRequestContext, test as base } from "@playwright/test";
import { checkAnswer } from "./contract";

export * from "@playwright/test";

const verbs = ["get", "post", "put", "patch", "delete", "head", "fetch"] as const;

/** The request fixture, with every answer of the APIs checked against the contract. */
function checked(request: APIRequestContext): APIRequestContext {
  return new Proxy(request, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (!verbs.includes(key as (typeof verbs)[number]) || typeof value !== "function")
        return value;
      return async (url: string, options?: { method?: string }) => {
        const response = await value.call(target, url, options);
        const method = key === "fetch" ? (options?.method ?? "GET") : String(key);
        await checkAnswer(method, typeof url === "string" ? url : response.url(), response);
        return response;
      };
    },
  });
}

/** Playwright's `test`, whose `request` checks each API answer against its registry entry. */
export const test = base.extend<{ request: APIRequestContext }>({
  request: async ({ request }, use) => {
    await use(checked(request));
  },
});
