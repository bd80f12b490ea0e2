// The webhook app of the journal-overhead benchmark: Express 5 + @kirimbayar/express, the order-status receiver with
// token verification and a no-op handler (as bench/lib/orders-route-server.mjs), over the idempotency store the
// command line names, with or without that store's delivery journal: `memory`, `memory-journal`, `redis <port>`,
// `redis-journal <port>`, `postgres <url>`, `postgres-journal <url>`, `postgres-transactional <url>`,
// `postgres-transactional-journal <url>`. Prints `ready <port>` once listening; stops on SIGTERM (flushing the
// journal first).
import { MemoryDeliveryJournal } from "@kirimbayar/core/journal";
import { PostgresDeliveryJournal, PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { RedisDeliveryJournal, RedisIdempotencyStore } from "@kirimbayar/core/redis";
import { createWebhookReceiver, MemoryIdempotencyStore, tokenVerifier } from "@kirimbayar/core/webhooks";
import { createWebhookRouter } from "@kirimbayar/express";
import express from "express";
import { Redis } from "ioredis";
import pg from "pg";
import { ORDERS_ROUTE_TOKEN } from "../lib/orders-route-token.mjs";

const [route, target] = process.argv.slice(2);
const withJournal = route.endsWith("-journal");
const kind = withJournal ? route.slice(0, -"-journal".length) : route;
const closers = [];
let store = new MemoryIdempotencyStore();
let journal;
if (kind === "memory") {
  // The memory journal's default bound (10,000 entries): a long run keeps recording and evicting, as in production.
  if (withJournal) journal = new MemoryDeliveryJournal({ instance: "bench" });
} else if (kind === "redis") {
  const redis = new Redis({ host: "127.0.0.1", port: Number(target), enableOfflineQueue: false, lazyConnect: true });
  await redis.connect();
  closers.push(() => redis.quit());
  store = new RedisIdempotencyStore({ client: redis });
  if (withJournal) journal = new RedisDeliveryJournal({ client: redis, instance: "bench" });
} else if (kind === "postgres" || kind === "postgres-transactional") {
  const pool = new pg.Pool({ connectionString: target, max: 10 });
  pool.on("error", () => {});
  closers.push(() => pool.end());
  // A table per mode, as postgres-vs-memory: one mode's rows do not weigh on the other's rounds.
  store = new PostgresIdempotencyStore({ pool, table: `bench_journal_idempotency_${kind.replace("-", "_")}` });
  if (withJournal) journal = new PostgresDeliveryJournal({ pool, table: "bench_delivery_journal", instance: "bench" });
} else {
  throw new Error(`unknown route ${route}`);
}

let handled = 0;
const orders = createWebhookReceiver({
  source: "orders",
  verify: [tokenVerifier({ secrets: [ORDERS_ROUTE_TOKEN], in: "query", name: "token" })],
  idempotency: { store, transactional: kind === "postgres-transactional" },
  ...(journal === undefined ? {} : { journal }),
});
orders.on("order.status", async () => {
  handled += 1;
});
let journalErrors = 0;
orders.onError((_error, { stage }) => {
  if (stage === "journal") journalErrors += 1;
});

const app = express();
app.use("/webhooks", createWebhookRouter({ orders }));
const server = app.listen(0, "127.0.0.1", () => {
  console.log(`ready ${server.address().port}`);
});
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(async () => {
    // Flushed, not closed: a delivery still finishing after closeAllConnections() may record one more entry.
    await journal?.flush?.();
    const entries = journal === undefined ? 0 : (await journal.search({ limit: 1 })).length;
    console.log(`handled ${handled}, journal errors ${journalErrors}, journal non-empty ${entries > 0}`);
    Promise.all(closers.map((close) => close())).finally(() => process.exit(journalErrors > 0 ? 3 : 0));
  });
});
