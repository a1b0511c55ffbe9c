import { agentApi, newContact } from "../support/fixtures";
import { expectError } from "../support/http";
import { expect, test } from "../support/test";

/** Text Postgres cannot store is a 400 naming where it is, never a 500 and never altered. */

test("NUL and lone surrogates in a body answer 400 validation_error with the path", async ({
  request,
}) => {
  const { auth, conversationId } = await newContact();
  for (const [content, message] of [
    ["a\u0000b", "must not contain NUL (\\u0000) characters"],
    ["a\uD800b", "must not contain unpaired UTF-16 surrogates"],
  ]) {
    const response = await request.post("/api/agent/v1/messages", {
      headers: { ...auth, "Content-Type": "application/json" },
      data: JSON.stringify({ conversationId, type: "text", content }),
    });
    const error = await expectError(response, 400, "validation_error");
    expect(error.issues).toEqual([{ path: "content", message }]);
  }
  // Nothing was stored: the conversation has no message.
  const history = await agentApi(request, auth).get(`/conversations/${conversationId}/messages`);
  expect((await history.json()).messages).toEqual([]);
});

test("NUL or bytes that are not UTF-8 in a path parameter or query value answer 400", async ({
  request,
}) => {
  const { auth } = await newContact();
  const api = agentApi(request, auth);
  const nul = await expectError(
    await api.get("/conversations/%00/messages"),
    400,
    "validation_error",
  );
  expect(nul.issues).toEqual([
    { path: "conversationId", message: "must not contain NUL (\\u0000) characters" },
  ]);
  const post = await expectError(
    await api.post("/conversations/%00/typing", {}),
    400,
    "validation_error",
  );
  expect(post.issues?.[0]?.path).toBe("conversationId");
  const query = await expectError(await api.get("/updates?afterSeq=%00"), 400, "validation_error");
  expect(query.issues).toEqual([
    { path: "afterSeq", message: "must not contain NUL (\\u0000) characters" },
  ]);
  const notUtf8 = await expectError(
    await api.get("/updates?afterSeq=%ED%A0%80"),
    400,
    "validation_error",
  );
  expect(notUtf8.issues).toEqual([{ path: "afterSeq", message: "is not valid UTF-8" }]);
  for (const path of ["/conversations/%ED%A0%80/messages", "/conversations/a%ZZ/messages"]) {
    const pathNotUtf8 = await expectError(await api.get(path), 400, "validation_error");
    expect(pathNotUtf8.issues).toEqual([{ path: "", message: "the URL path is not valid UTF-8" }]);
  }
});
