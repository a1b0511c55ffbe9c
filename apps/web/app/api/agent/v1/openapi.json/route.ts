import { methods } from "~/server/api-route";
import { openApiResponse } from "~/server/openapi";

/** The OpenAPI document of the Agent API and its webhooks, generated from the registries (no auth). */
export const { GET, POST, PUT, PATCH, DELETE } = methods({ GET: openApiResponse("agent") });
