// One webhook app for the Postgres-vs-memory benchmark: Express 5 + @kirimbayar/express, the order-status receiver
// with token verification, and the store named on the command line: `memory`, `postgres <url>` or
// `postgres-transactional <url>` (the event recorded in the handler's transaction). Prints `ready <port>` once
// listening; stops on SIGTERM.
import {
  createWebhookReceiver,
  MemoryIdempotencyStore,
  PostgresIdempotencyStore,
  tokenVerifier,
} from "@kirimbayar/core/webhooks";
import { createWebhookRouter } from "@kirimbayar/express";
import express from "express";
import pg from "pg";

const TOKEN = "bench-webhook-token-0123456789abcdef"; // same as run.mjs

const [kind, url] = process.argv.slice(2);
let pool;
let store = new MemoryIdempotencyStore();
if (kind !== "memory") {
  pool = new pg.Pool({ connectionString: url, max: 10 });
  store = new PostgresIdempotencyStore({ pool, table: "bench_idempotency" });
}

let handled = 0;
const orders = createWebhookReceiver({
  source: "orders",
  verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
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
    Promise.resolve(pool?.end()).finally(() => process.exit(0));
  });
});
