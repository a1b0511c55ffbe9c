import { methods } from "~/server/api-route";
import { openApiResponse } from "~/server/openapi";

/** The OpenAPI document of the Developer API, generated from the registry (no auth). */
export const { GET, POST, PUT, PATCH, DELETE } = methods({ GET: openApiResponse("dev") });
