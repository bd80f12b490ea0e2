#!/usr/bin/env node
// The delivery journal's cost per delivery, without HTTP (a profiling aid for issue 30, not a goal): the order-status
// receiver's `handle()` (token verification, memory idempotency store, a no-op handler, a new event per delivery)
// called in a loop, with no journal, with a journal that keeps nothing (the receiver's journal stage alone), with a
// batching journal whose writes do nothing (stage + write-behind buffer, as the Postgres and Redis journals on the
// delivery path), the same with the Redis journal's batches on a client that answers at once, and with
// `MemoryDeliveryJournal`. Rounds rotate the variants; the figure is each variant's median µs
// per delivery and its difference from "off". Deliveries run `CONCURRENCY` at a time, as a server's do.
//
//   node bench/journal-overhead/micro.mjs [--rounds 5] [--deliveries 20000] [--only off,memory]
import { MemoryDeliveryJournal } from "@kirimbayar/core/journal";
import { PostgresDeliveryJournal } from "@kirimbayar/core/postgres";
import { RedisDeliveryJournal } from "@kirimbayar/core/redis";
import { createWebhookReceiver, MemoryIdempotencyStore, tokenVerifier } from "@kirimbayar/core/webhooks";

const TOKEN = "bench-webhook-token-0123456789abcdef";
const CONCURRENCY = 50;
const argument = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1];
};
const ROUNDS = Number(argument("rounds", 5));
const DELIVERIES = Number(argument("deliveries", 20_000));

// A Postgres journal on a connection that answers every query at once: its batching and row-building, no database.
const nullConnection = { query: async () => ({ rows: [], rowCount: 0 }) };
const nullRedis = { call: async (command) => (command === "SCRIPT" ? "sha" : 1) };
const VARIANTS = {
  off: () => undefined,
  stage: () => ({
    kind: "null",
    journalStage: new MemoryDeliveryJournal().journalStage,
    instance: "bench",
    record: () => Promise.resolve(),
  }),
  batched: () => new PostgresDeliveryJournal({ client: nullConnection, instance: "bench" }),
  // The Redis journal's side of a batch (entries as JSON, the script's arguments), on a client answering at once.
  "redis-args": () => new RedisDeliveryJournal({ client: nullRedis, instance: "bench" }),
  memory: () => new MemoryDeliveryJournal({ instance: "bench" }),
};
const only = argument("only", Object.keys(VARIANTS).join(",")).split(",");

let sequence = 0;
function receiverWith(journal) {
  const receiver = createWebhookReceiver({
    source: "orders",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
    idempotency: { store: new MemoryIdempotencyStore() },
    ...(journal === undefined ? {} : { journal }),
  });
  receiver.on("order.status", async () => {});
  return receiver;
}

function request() {
  sequence += 1;
  return {
    method: "POST",
    url: `/webhooks/orders?token=${TOKEN}`,
    headers: { "content-type": "application/json" },
    rawBody: Buffer.from(JSON.stringify({ order_no: `ORD-${sequence}`, cnote: `JP${sequence}`, status: "Dikirim" })),
  };
}

async function run(receiver, deliveries) {
  let left = deliveries;
  const worker = async () => {
    while (left-- > 0) {
      const response = await receiver.handle(request());
      if (response.status !== 200) throw new Error(`answered ${response.status}: ${response.body}`);
    }
  };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return Number(process.hrtime.bigint() - started) / 1e3 / deliveries;
}

// Each variant runs in a process of its own (as each route has its own server): sharing one would make the
// receiver's call sites see every variant's shapes, which slows them all. Rounds of processes rotate the variants.
const child = argument("child", undefined);
if (child !== undefined) {
  const receiver = receiverWith(VARIANTS[child]());
  // Warm-up: past the JIT and, for the memory journal, past its 10,000-entry bound (it overwrites from then).
  await run(receiver, 15_000);
  const times = [];
  for (let i = 0; i < 3; i++) times.push(await run(receiver, DELIVERIES));
  console.log(JSON.stringify(times));
  process.exit(0);
}

const { execFileSync } = await import("node:child_process");
const times = Object.fromEntries(only.map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  const order = only.map((_, i) => only[(i + round) % only.length]);
  for (const name of order) {
    const args = [process.argv[1], "--child", name, "--deliveries", String(DELIVERIES)];
    times[name].push(...JSON.parse(execFileSync(process.execPath, args, { encoding: "utf8" })));
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const off = times.off === undefined ? undefined : median(times.off);
console.log(`${ROUNDS} rounds of a process per variant, 3 x ${DELIVERIES} deliveries each, ${CONCURRENCY} at a time`);
console.log("(median µs per delivery)");
for (const name of only) {
  const us = median(times[name]);
  const extra = off === undefined || name === "off" ? "" : `  +${(us - off).toFixed(2)} µs (${(off / us).toFixed(2)}x)`;
  console.log(`${name.padEnd(10)} ${us.toFixed(2)} µs${extra}`);
}
