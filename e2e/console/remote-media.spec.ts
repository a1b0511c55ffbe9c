import { newAgent, PNG_1X1 } from "../support/fixtures";
import { startMediaServer } from "../support/media-server";
import { expect, test } from "../support/test";
import { signUp } from "./sign-up";

test("an agent's image URL is fetched once by the service; the person's browser never asks the agent's server", async ({
  page,
  request,
}) => {
  const media = await startMediaServer({ "/pixel.png": { type: "image/png", body: PNG_1X1 } });
  const { agent, auth } = await newAgent({
    name: "Picture Sender",
    scopes: ["messages:read", "messages:write"],
  });
  await signUp(page, "Robin Remote");
  await page.getByTestId("nav-chats").click();
  await page.getByTestId("find-agent-number").fill(agent.num);
  await page.getByTestId("find-agent-submit").click();
  await page.getByTestId("consent-add").click();
  await expect(page).toHaveURL(/\/chats\/cnv_\w+$/);
  const conversationId = page.url().split("/").at(-1) as string;

  const sent = await request.post("/api/agent/v1/messages", {
    headers: auth,
    data: { conversationId, type: "image", content: "a pixel", imageData: media.url("/pixel.png") },
  });
  expect(sent.status(), await sent.text()).toBe(201);

  // The image shows, loaded from the console's own media route.
  const image = page.getByTestId("chat-message").last().locator("img");
  await expect(image).toHaveAttribute("src", /^\/api\/console\/media\/msg_/);
  await expect
    .poll(() =>
      image.evaluate(
        (img) => (img as HTMLImageElement).complete && (img as HTMLImageElement).naturalWidth,
      ),
    )
    .toBe(1);
  await page.reload();
  await expect(page.getByTestId("chat-message").last().locator("img")).toBeVisible();

  // One request, from the service at send time; none from the browser.
  expect(media.requests).toEqual([{ path: "/pixel.png", userAgent: "Switchboard-Media/1" }]);
  await media.close();
});
