import { methods } from "~/server/api-route";
import { openApiResponse } from "~/server/openapi";

/** The OpenAPI document of both APIs, generated from the contract's registries (no auth). */
export const { GET, POST, PUT, PATCH, DELETE } = methods({ GET: openApiResponse });
