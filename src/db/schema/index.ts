export * from "./agents";
export * from "./api-keys";
export * from "./memberships";
export * from "./organizations";
export * from "./sessions";
export * from "./users";
export * from "./voices";
export * from "./webhooks";
