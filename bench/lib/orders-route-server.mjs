// One webhook app for the store and inbox benchmarks: Express 5 + @kirimbayar/express, the order-status receiver
// with token verification and a no-op handler, and what the command line names: the idempotency store `memory`,
// `redis <port>`, `postgres <url>` or `postgres-transactional <url>` (the event recorded in the handler's
// transaction), or inbox mode, answered once the event is written to the queue: `pg-boss <url> <queue>` or
// `bullmq <port> <queue>` (no worker runs; the memory store stays for the worker side). Prints `ready <port>` once
// listening; stops on SIGTERM.

import { PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { RedisIdempotencyStore } from "@kirimbayar/core/redis";
import { createWebhookReceiver, MemoryIdempotencyStore, tokenVerifier } from "@kirimbayar/core/webhooks";
import { createWebhookRouter } from "@kirimbayar/express";
import express from "express";
import { Redis } from "ioredis";
import pg from "pg";
import { ORDERS_ROUTE_TOKEN } from "./orders-route-token.mjs";

const [kind, target, queue] = process.argv.slice(2);
const closers = [];
let store = new MemoryIdempotencyStore();
let inbox;
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
} else if (kind === "pg-boss") {
  const { default: PgBoss } = await import("pg-boss");
  const { createPgBossInbox } = await import("@kirimbayar/inbox/pg-boss");
  // A pool of 10, as the Postgres store's; the schema was installed by the benchmark.
  const boss = new PgBoss({ connectionString: target, max: 10, schedule: false, migrate: false });
  boss.on("error", () => {});
  await boss.start();
  closers.push(() => boss.stop({ graceful: false, wait: true, timeout: 2_000 }));
  inbox = await createPgBossInbox({ boss, name: queue });
} else if (kind === "bullmq") {
  const { createBullMqInbox } = await import("@kirimbayar/inbox/bullmq");
  inbox = await createBullMqInbox({ connection: { host: "127.0.0.1", port: Number(target) }, name: queue });
  closers.push(() => inbox.close());
} else if (kind !== "memory") {
  throw new Error(`unknown kind ${kind}`);
}

let handled = 0;
const orders = createWebhookReceiver({
  source: "orders",
  verify: [tokenVerifier({ secrets: [ORDERS_ROUTE_TOKEN], in: "query", name: "token" })],
  idempotency: { store, transactional: kind === "postgres-transactional" },
  ...(inbox === undefined ? {} : { inbox }),
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
