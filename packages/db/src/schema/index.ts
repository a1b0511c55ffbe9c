export * from "./conversations";
export * from "./identity";
export * from "./limits";
export * from "./messages";
export * from "./settings";
