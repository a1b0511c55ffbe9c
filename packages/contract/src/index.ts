export * from "./common";
export * from "./developer";
export * from "./errors";
export * from "./events";
export * from "./health";
export * from "./scopes";
export * from "./users";
export * from "./stream";
