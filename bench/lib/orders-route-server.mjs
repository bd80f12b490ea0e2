// One webhook app for the store benchmarks (redis-vs-memory, postgres-vs-memory): Express 5 + @kirimbayar/express,
// the order-status receiver with token verification and a no-op handler, and the idempotency store named on the
// command line: `memory`, `redis <port>`, `postgres <url>` or `postgres-transactional <url>` (the event recorded in
// the handler's transaction). Prints `ready <port>` once listening; stops on SIGTERM.
import {
  createWebhookReceiver,
  MemoryIdempotencyStore,
  PostgresIdempotencyStore,
  RedisIdempotencyStore,
  tokenVerifier,
} from "@kirimbayar/core/webhooks";
import { createWebhookRouter } from "@kirimbayar/express";
import express from "express";
import { Redis } from "ioredis";
import pg from "pg";
import { ORDERS_ROUTE_TOKEN } from "./orders-route-token.mjs";

const [kind, target] = process.argv.slice(2);
const closers = [];
let store = new MemoryIdempotencyStore();
if (kind === "redis") {
  const redis = new Redis({ host: "127.0.0.1", port: Number(target), enableOfflineQueue: false, lazyConnect: true });
  await redis.connect();
  closers.push(() => redis.quit());
  store = new RedisIdempotencyStore({ client: redis });
} else if (kind === "postgres" || kind === "postgres-transactional") {
  const pool = new pg.Pool({ connectionString: target, max: 10 });
  pool.on("error", () => {});
  closers.push(() => pool.end());
  // A table per mode, so that one mode's rows (and the autovacuum they cause) do not weigh on the other's rounds.
  store = new PostgresIdempotencyStore({ pool, table: `bench_idempotency_${kind.replace("-", "_")}` });
}

let handled = 0;
const orders = createWebhookReceiver({
  source: "orders",
  verify: [tokenVerifier({ secrets: [ORDERS_ROUTE_TOKEN], in: "query", name: "token" })],
  idempotency: { store, transactional: kind === "postgres-transactional" },
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
    Promise.all(closers.map((close) => close())).finally(() => process.exit(0));
  });
});
