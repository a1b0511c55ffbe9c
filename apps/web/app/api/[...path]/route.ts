import { notFoundRoutes } from "~/server/api-route";

export const { GET, POST, PUT, PATCH, DELETE } = notFoundRoutes();
