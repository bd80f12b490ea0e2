// Issue 29: a claim that timed out is not left behind, on the Postgres store. The PostgreSQL server (every backend)
// is frozen with SIGSTOP while a claim is out: the delivery is answered 503 at a time limit, the claim commits when
// the server wakes, and it must be given back at once, or the provider's retries are answered 409 for a whole lease.
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresIdempotencyStore } from "../src/postgres.js";
import { createWebhookReceiver, tokenVerifier } from "../src/webhooks.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "pg-late-claim";
const FREEZE_MS = 1_500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const delivery = (id: string) =>
  webhookRequest({ url: `/q?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });

let server: TestPostgresServer;
let pool: pg.Pool;

beforeAll(async () => {
  server = await startPostgresServer();
  pool = new pg.Pool({ connectionString: server.url, max: 4 });
  pool.on("error", () => {});
}, 60_000);

afterAll(async () => {
  server?.thaw();
  await pool?.end();
  await server?.destroy();
});

describe("a Postgres claim that committed after its time limit", () => {
  for (const [name, batchLimitMs, receiverLimitMs] of [
    ["the store's batch time limit", 300, 5_000],
    ["the receiver's time limit", 5_000, 300],
  ] as const) {
    it(`is given back when the server wakes (503 at ${name}); the retry is processed once`, async () => {
      const table = `late_claims_${batchLimitMs}`;
      const store = new PostgresIdempotencyStore({ pool, table, batching: { timeoutMs: batchLimitMs } });
      await store.ensureSchema();
      const runs: string[] = [];
      const receiver = createWebhookReceiver({
        source: "qris",
        verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
        idempotency: { store, leaseMs: 30_000, operationTimeoutMs: receiverLimitMs },
        logger: { warn: () => {}, error: () => {} },
      }).on("payment.success", (event) => {
        runs.push(String(event.data.qris_history_id));
      });
      const id = `pg-late-${batchLimitMs}`;
      server.freeze();
      let first: number;
      try {
        first = (await receiver.handle(delivery(id))).status;
        await sleep(FREEZE_MS);
      } finally {
        server.thaw();
      }
      expect(first).toBe(503);
      // The claim did commit when the server woke; wait (bounded) until it is given back.
      let state: unknown = "processing";
      for (let i = 0; i < 100 && state === "processing"; i++) {
        await sleep(20);
        state = (await pool.query(`SELECT state FROM ${table} WHERE key = $1`, [`qris:payment.success:${id}`])).rows[0]
          ?.state;
      }
      console.log(`[late-claim] Postgres, 503 at ${name}: the late claim's row is now ${String(state)}`);
      expect(state).toBe("released");
      const retry = await receiver.handle(delivery(id));
      expect(retry.status).toBe(200);
      expect(runs).toEqual([id]);
    }, 30_000);
  }

  it("in transactional mode leaves nothing behind: the claim is rolled back with its transaction", async () => {
    const table = "late_claims_tx";
    const store = new PostgresIdempotencyStore({ pool, table });
    await store.ensureSchema();
    const runs: string[] = [];
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: { store, transactional: true, leaseMs: 30_000, operationTimeoutMs: 300 },
      logger: { warn: () => {}, error: () => {} },
    }).on("payment.success", (event) => {
      runs.push(String(event.data.qris_history_id));
    });
    // An idle connection in the pool, so the BEGIN and claim go out at once and wait in the frozen server.
    expect((await receiver.handle(delivery("pg-late-tx-warm"))).status).toBe(200);
    server.freeze();
    let first: number;
    try {
      first = (await receiver.handle(delivery("pg-late-tx"))).status;
      await sleep(FREEZE_MS);
    } finally {
      server.thaw();
    }
    expect(first).toBe(503);
    // The provider's retry after the thaw (bounded quick retries: the rollback travels on the woken connection).
    let status = 0;
    const statuses: number[] = [];
    for (let i = 0; i < 20 && status !== 200; i++) {
      if (i > 0) await sleep(100);
      status = (await receiver.handle(delivery("pg-late-tx"))).status;
      statuses.push(status);
    }
    console.log(`[late-claim] Postgres transactional, retries after the thaw: ${JSON.stringify(statuses)}`);
    expect(statuses[0]).toBe(200);
    expect(runs).toEqual(["pg-late-tx-warm", "pg-late-tx"]);
  }, 30_000);
});
