// A pg-boss inbox worker process for pg-boss-killed-worker.test.ts, which SIGKILLs it while it holds events. Built
// packages (dist of @kirimbayar/inbox and @kirimbayar/core), the DEFAULT settings of createPgBossInbox and
// startInboxWorker, and a qris receiver with the PostgreSQL idempotency store in transactional mode whose handler
// writes the payment's effect in the transaction and then hangs (a handler stuck on a slow dependency): the kill
// lands with every event held and no transaction committed.
//
// Settings come as JSON in HELD_WORKER: { pgUrl, queue, schema }. Over IPC it sends { type: "holding", holding }
// each time one more handler is stuck. It exits when the parent goes away.
import { PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { createWebhookReceiver } from "@kirimbayar/core/webhooks";
import { startInboxWorker } from "@kirimbayar/inbox";
import { createPgBossInbox } from "@kirimbayar/inbox/pg-boss";
import pg from "pg";
import PgBoss from "pg-boss";

const { pgUrl, queue, schema } = JSON.parse(process.env.HELD_WORKER ?? "{}");
if (process.send === undefined) throw new Error("pg-boss-held-worker runs as a forked child with an IPC channel");
process.on("disconnect", () => process.exit(0));
const silent = { warn: () => {}, error: () => {} };

const pool = new pg.Pool({ connectionString: pgUrl, max: 12 });
pool.on("error", () => {});
const boss = new PgBoss({ connectionString: pgUrl, max: 4, schedule: false });
boss.on("error", () => {});
await boss.start();
const inbox = await createPgBossInbox({ boss, name: queue, logger: silent });

let holding = 0;
const qris = createWebhookReceiver({
  source: "qris",
  insecureNoVerification: true,
  idempotency: { store: new PostgresIdempotencyStore({ pool, table: `${schema}.idempotency` }), transactional: true },
  logger: silent,
}).on("payment.success", async (event, ctx) => {
  await ctx.transaction.query(`INSERT INTO ${schema}.effects (payment_id, worker) VALUES ($1, 'killed')`, [
    String(event.data.qris_history_id),
  ]);
  holding += 1;
  process.send?.({ type: "holding", holding });
  await new Promise(() => {}); // stuck until the kill
});
await startInboxWorker({ inbox, receivers: { qris }, logger: silent });
