// One webhook app for the Redis-vs-memory benchmark: Express 5 + @kirimbayar/express, the order-status receiver
// with token verification, and the idempotency store named on the command line (`memory` or `redis <port>`).
// Prints `ready <port>` once listening; stops on SIGTERM.
import {
  createWebhookReceiver,
  MemoryIdempotencyStore,
  RedisIdempotencyStore,
  tokenVerifier,
} from "@kirimbayar/core/webhooks";
import { createWebhookRouter } from "@kirimbayar/express";
import express from "express";
import { Redis } from "ioredis";

const TOKEN = "bench-webhook-token-0123456789abcdef"; // same as run.mjs

const [kind, redisPort] = process.argv.slice(2);
let redis;
let store;
if (kind === "redis") {
  redis = new Redis({ host: "127.0.0.1", port: Number(redisPort), enableOfflineQueue: false, lazyConnect: true });
  await redis.connect();
  store = new RedisIdempotencyStore({ client: redis });
} else {
  store = new MemoryIdempotencyStore();
}

let handled = 0;
const orders = createWebhookReceiver({
  source: "orders",
  verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
  idempotency: { store },
});
orders.on("order.status", async () => {
  handled += 1;
});

const app = express();
app.use("/webhooks", createWebhookRouter({ orders }));
const server = app.listen(0, "127.0.0.1", () => {
  console.log(`ready ${server.address().port}`);
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => {
    console.log(`handled ${handled}`);
    Promise.resolve(redis?.quit()).finally(() => process.exit(0));
  });
});
