export * from "./consent";
export * from "./conversations";
export * from "./events";
export * from "./identity";
export * from "./limits";
export * from "./messages";
export * from "./objects";
export * from "./settings";
