// The transactional MySQL store against a hand-rolled mysql2 transaction doing the same work, and the plain (claim +
// complete) MySQL store against the memory store, on a MariaDB of tests/mariadb-server: deliveries per second through
// the receiver's handle() (no HTTP), 8 at a time, alternating rounds. Needs a built @kirimbayar/core (dist).
// Run: node measure/transactional-route.mjs

import mysql from "mysql2/promise";
import { MysqlIdempotencyStore } from "../../../packages/core/dist/mysql.js";
import { createWebhookReceiver, MemoryIdempotencyStore, tokenVerifier } from "../../../packages/core/dist/webhooks.js";
import { startMariaDbServer } from "../index.js";

const server = await startMariaDbServer();
const pool = mysql.createPool({ uri: server.url, connectionLimit: 8 });
await pool.query("CREATE TABLE orders (id VARCHAR(64) PRIMARY KEY, paid INT NOT NULL DEFAULT 0) ENGINE=InnoDB");
await pool.query("CREATE TABLE processed (event_key VARCHAR(255) PRIMARY KEY) ENGINE=InnoDB");
const transactional = new MysqlIdempotencyStore({ pool, table: "events_tx" });
const plain = new MysqlIdempotencyStore({ pool, table: "events_plain" });
await transactional.ensureSchema();
await plain.ensureSchema();

const body = (id) =>
  JSON.stringify({
    event: "payment.success",
    timestamp: "2026-03-01T03:00:00Z",
    data: {
      qris_history_id: id,
      qris_id: "q",
      amount: 1,
      original_amount: 1,
      status: "paid",
      paid_at: "2026-03-01T02:59:58Z",
      payment_method: "QRIS",
      payment_provider: "DANA",
      created_at: "2026-03-01T02:50:00Z",
    },
  });
const request = (id) => ({
  method: "POST",
  url: "/h?token=t",
  headers: { "content-type": "application/json" },
  rawBody: body(id),
});
const verify = [tokenVerifier({ secrets: "t", in: "query" })];
const markPaid = (connection, id) =>
  connection.execute("INSERT INTO orders (id, paid) VALUES (?, 1) ON DUPLICATE KEY UPDATE paid = paid + 1", [id]);

const routes = {
  transactional: createWebhookReceiver({
    source: "qris",
    verify,
    idempotency: { store: transactional, transactional: true },
  }).on("payment.success", (event, ctx) => markPaid(ctx.transaction, String(event.data.qris_history_id))),
  // The same transaction by hand: begin; record the event's key (a duplicate does nothing); the update; commit.
  handRolled: {
    async handle(req) {
      const event = JSON.parse(req.rawBody);
      const connection = await pool.getConnection();
      try {
        await connection.query("START TRANSACTION");
        const [r] = await connection.execute("INSERT IGNORE INTO processed (event_key) VALUES (?)", [
          `qris:${event.event}:${event.data.qris_history_id}`,
        ]);
        if (r.affectedRows === 1) await markPaid(connection, String(event.data.qris_history_id));
        await connection.query("COMMIT");
        return { status: 200 };
      } finally {
        connection.release();
      }
    },
  },
  mysqlStore: createWebhookReceiver({ source: "qris", verify, idempotency: { store: plain } }).on(
    "payment.success",
    (event) => markPaid(pool, String(event.data.qris_history_id)),
  ),
  memoryStore: createWebhookReceiver({
    source: "qris",
    verify,
    idempotency: { store: new MemoryIdempotencyStore() },
  }).on("payment.success", (event) => markPaid(pool, String(event.data.qris_history_id))),
};

let serial = 0;
async function round(name, count) {
  const route = routes[name];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < count) {
        next++;
        const response = await route.handle(request(`${name}-${serial++}`));
        if (response.status !== 200) throw new Error(`${name}: ${response.status}`);
      }
    }),
  );
  return count / ((performance.now() - started) / 1000);
}

// Paired rounds: each pair runs the two routes back to back (order flipped every round), so load from elsewhere on
// the machine hits both alike; the figure is the median of the per-pair ratios.
for (const name of Object.keys(routes)) await round(name, 300); // warm-up
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
async function paired(a, b, rounds, count) {
  const ratios = [];
  for (let r = 0; r < rounds; r++) {
    const first = r % 2 === 0 ? a : b;
    const second = first === a ? b : a;
    const rates = { [first]: await round(first, count), [second]: await round(second, count) };
    ratios.push(rates[a] / rates[b]);
  }
  const sorted = [...ratios].sort((x, y) => x - y);
  return `${median(ratios).toFixed(2)} (middle half ${sorted[Math.floor(sorted.length / 4)].toFixed(2)}-${sorted[Math.floor((3 * sorted.length) / 4)].toFixed(2)}, ${rounds} pairs of ${count})`;
}
console.log(`transactional / hand-rolled: ${await paired("transactional", "handRolled", 20, 300)}`);
console.log(`mysql store / memory store: ${await paired("mysqlStore", "memoryStore", 20, 300)}`);
await pool.end();
await server.destroy();
