// One webhook app for bench/inbox (part a): Express 5 + @kirimbayar/express, the order-status receiver with token
// verification, either in direct mode with the memory store and a no-op handler (`memory`), or in inbox mode, where
// a delivery is answered once the event is written to the queue (`pg-boss <url> <queue>` or
// `bullmq <port> <queue>`; no worker runs). Prints `ready <port>` once listening; stops on SIGTERM.
import { createWebhookReceiver, MemoryIdempotencyStore, tokenVerifier } from "@kirimbayar/core/webhooks";
import { createWebhookRouter } from "@kirimbayar/express";
import express from "express";
import { ORDERS_ROUTE_TOKEN } from "../lib/orders-route-token.mjs";

const [kind, target, queue] = process.argv.slice(2);
const closers = [];
let inbox;
if (kind === "pg-boss") {
  const { default: PgBoss } = await import("pg-boss");
  const { createPgBossInbox } = await import("@kirimbayar/inbox/pg-boss");
  // A pool of 10, as the Postgres store benchmark's; the schema was installed by the benchmark.
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
  throw new Error(`unknown kind ${kind}: memory, pg-boss or bullmq`);
}

let handled = 0;
const orders = createWebhookReceiver({
  source: "orders",
  verify: [tokenVerifier({ secrets: [ORDERS_ROUTE_TOKEN], in: "query", name: "token" })],
  idempotency: { store: new MemoryIdempotencyStore() },
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
