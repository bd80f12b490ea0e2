// One inbox worker for bench/inbox (part b), in a process of its own: `startInboxWorker` on a queue the benchmark
// pre-filled with `<events>` order-status events, the order-status receiver with the memory idempotency store and
// a no-op handler. Times from the start of the worker to the last event's handler and prints
// `done <events> <ms>`, then stops. Usage: worker-run.mjs pg-boss|bullmq <url|port> <queue> <events> <concurrency>.
import { createWebhookReceiver, MemoryIdempotencyStore } from "@kirimbayar/core/webhooks";
import { startInboxWorker } from "@kirimbayar/inbox";

const [engine, target, queue, eventsArg, concurrencyArg] = process.argv.slice(2);
const events = Number(eventsArg);
const concurrency = Number(concurrencyArg);
const TIME_LIMIT_MS = 120_000 + events * 2; // run.mjs allows as long
const closers = [];

let inbox;
if (engine === "pg-boss") {
  const { default: PgBoss } = await import("pg-boss");
  const { createPgBossInbox } = await import("@kirimbayar/inbox/pg-boss");
  const boss = new PgBoss({ connectionString: target, max: 10, schedule: false, migrate: false, supervise: false });
  boss.on("error", () => {});
  await boss.start();
  closers.push(() => boss.stop({ graceful: false, wait: true, timeout: 2_000 }));
  inbox = await createPgBossInbox({ boss, name: queue });
} else {
  const { createBullMqInbox } = await import("@kirimbayar/inbox/bullmq");
  inbox = await createBullMqInbox({ connection: { host: "127.0.0.1", port: Number(target) }, name: queue });
  closers.push(() => inbox.close());
}

let handled = 0;
let finished;
const allHandled = new Promise((resolve) => {
  finished = resolve;
});
const orders = createWebhookReceiver({
  source: "orders",
  insecureNoVerification: true,
  idempotency: { store: new MemoryIdempotencyStore() },
  logger: { warn: () => {}, error: () => {} },
}).on("order.status", () => {
  handled += 1;
  if (handled === events) finished(performance.now());
});

const limit = setTimeout(() => {
  console.error(`only ${handled} of ${events} events handled in ${TIME_LIMIT_MS} ms`);
  process.exit(1);
}, TIME_LIMIT_MS);
const startedAt = performance.now();
const worker = await startInboxWorker({ inbox, receivers: { orders }, concurrency, logger: console });
const endedAt = await allHandled;
clearTimeout(limit);
console.log(`done ${handled} ${(endedAt - startedAt).toFixed(1)}`);
await worker.stop({ timeoutMs: 5_000 });
for (const close of closers) await close().catch(() => {});
process.exit(0);
