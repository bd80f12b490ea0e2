// Entry point of `@kirimbayar/core/webhooks/transport`: the body-reading half of the HTTP contract, for adapters
// (Express, Hono, NestJS, your own), and the `Host` check of the console's mounts. Kept out of `@kirimbayar/core/webhooks` so receivers that never read a Node
// stream do not ship the Node reader.
export * from "./webhooks/transport/index.js";
