// Entry point of `@kirimbayar/core`: the API clients, schemas and helpers, plus everything in `./webhooks`.

export { SDK_NAME } from "./version.js";
export * from "./webhooks.js";
