// The pg-boss inbox and the reconciler behind a real PgBouncer in transaction and session mode, each as its guide
// shows it (default options): pg-boss 10 started on the pooled URL, the inbox's own statements (its named insert, its
// fetch, heartbeat and settle statements), a worker applying the queued events through a Postgres store on the same
// pooled URL; and the reconciler applying, through such a store, the payments whose webhooks never arrived.
import { createReconciler, QrisClient } from "@kirimbayar/core";
import { PostgresDeliveryJournal, PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { createWebhookRouter } from "@kirimbayar/express";
import { startInboxWorker } from "@kirimbayar/inbox";
import { createPgBossInbox } from "@kirimbayar/inbox/pg-boss";
import { startPgBouncer, type TestPgBouncer } from "@kirimbayar/test-pgbouncer-server";
import { createFakeProvider } from "@kirimbayar/testing";
import express from "express";
import pg from "pg";
import PgBoss from "pg-boss";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { capturedLog, deliverCampaign, historyIds, TOKEN, unexpectedErrors } from "./support/deliveries.js";
import { BOUNCER_POOL, switchWarnings, usePoolerDatabase } from "./support/pooler-suite.js";

const database = usePoolerDatabase();
const { appliedOf } = database;
let run = 0;

const quietPool = (url: string) => {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on("error", () => {});
  pool.on("connect", (client) => client.on("error", () => {}));
  return pool;
};

describe.each(["transaction", "session"] as const)("behind PgBouncer in %s mode", (mode) => {
  let bouncer: TestPgBouncer;

  beforeAll(async () => {
    bouncer = await startPgBouncer(database.postgres, { poolMode: mode, poolSize: BOUNCER_POOL[mode] });
  });

  afterAll(async () => {
    await bouncer?.destroy();
  });

  it("pg-boss inbox (the inbox guide's set-up): every delivery queued (200), every event applied once", async () => {
    const prefix = `inbox-${mode}-${run++}`;
    const log = capturedLog();
    const boss = new PgBoss(bouncer.url);
    const bossErrors: string[] = [];
    boss.on("error", (error) => bossErrors.push(String(error)));
    await boss.start();
    const pool = quietPool(bouncer.url);
    const store = new PostgresIdempotencyStore({ pool, logger: log });
    await store.ensureSchema();
    const inbox = await createPgBossInbox({ boss, name: `pooler-${prefix}`, logger: log });
    const router = createWebhookRouter({
      qris: {
        verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
        inbox,
        idempotency: { store },
        logger: log,
      },
    });
    router.receivers.qris?.on("payment.success", async (event) => {
      await pool.query("INSERT INTO effects (history_id, setup) VALUES ($1, 'inbox')", [event.data.qris_history_id]);
    });
    const app = express().use("/webhooks", router);
    const server = app.listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/webhooks/qris?token=${TOKEN}`;
    const worker = await startInboxWorker({ inbox, receivers: router.receivers, concurrency: 10, logger: log });
    try {
      const result = await deliverCampaign(url, { prefix });
      const expected = Object.fromEntries(historyIds(prefix, 100).map((id) => [id, 1]));
      await vi.waitFor(async () => expect(await appliedOf(prefix)).toEqual(expected), {
        timeout: 30_000,
        interval: 200,
      });
      console.log(
        `[pooler] ${JSON.stringify({ mode, setup: "pg-boss inbox", ...result, switches: switchWarnings(log.warnings).length })}`,
      );
      expect(result.answered5xx).toBe(0);
      expect(result.byStatus).toEqual({ 200: result.requests });
      // Settled: nothing left waiting or active, nothing dead.
      await vi.waitFor(
        async () => expect(await inbox.stats()).toMatchObject({ waiting: 0, active: 0, deadLetters: 0 }),
        {
          timeout: 10_000,
          interval: 200,
        },
      );
      expect(unexpectedErrors(log.errors)).toEqual([]);
      expect(bossErrors).toEqual([]);
      // Transaction mode: pg-boss's pool (the inbox's named insert) and the store's pool each switch once.
      expect(switchWarnings(log.warnings).length).toBe(mode === "transaction" ? 2 : 0);
    } finally {
      await worker.stop();
      server.closeAllConnections();
      server.close();
      await inbox.close();
      await boss.stop({ graceful: false, wait: true });
      await pool.end();
    }
  });

  it("reconciler through a transactional store and journal: the payments whose webhooks never arrived, applied once", async () => {
    const prefix = `reconcile-${mode}-${run++}`;
    const log = capturedLog();
    const pool = quietPool(bouncer.url);
    const store = new PostgresIdempotencyStore({ pool, logger: log });
    const journal = new PostgresDeliveryJournal({ pool, logger: log });
    await store.ensureSchema();
    await journal.ensureSchema();
    // Each fake provider numbers its QR codes from 1: the other mode's run recorded the same keys.
    await database.admin.query(
      "DELETE FROM kirimbayar_idempotency WHERE key LIKE 'qris:%' AND key NOT LIKE '%inbox-%'",
    );
    // No webhook URL: the provider's webhooks never reach the shop.
    const provider = createFakeProvider({ rateLimit: false });
    const qrisClient = new QrisClient({
      apiKey: provider.apiKeys.qris[0] ?? "",
      baseUrl: provider.baseUrl,
      fetch: provider.fetch,
    });
    const qris = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
      idempotency: { store, transactional: true },
      journal,
      logger: log,
    });
    const origins = new Map<string, string>();
    qris.on("payment.success", async (event, ctx) => {
      origins.set(String(event.data.qris_history_id), ctx.origin);
      await (ctx.transaction as pg.PoolClient).query(
        "INSERT INTO effects (history_id, setup) VALUES ($1, 'reconcile')",
        [`${prefix}-${event.data.qris_history_id}`],
      );
    });
    const reconciler = createReconciler({
      receivers: { qris },
      clients: { qris: qrisClient },
      concurrency: 10,
      minIntervalPerIdMs: 0,
      journal,
      logger: log,
    });
    const startedAt = Date.now();
    try {
      const codes: { id: string; amount: number }[] = [];
      for (let i = 0; i < 40; i++) {
        const { data } = await qrisClient.generateQris({ qris_id: 1, amount: 10_000 + i, output_type: "string" });
        codes.push({ id: String(data.history_id), amount: data.final_amount });
      }
      const paid = codes.filter((_, i) => i % 2 === 0);
      for (const code of paid) await provider.qris.pay(code.id);
      const pending = codes.map((code) => ({ source: "qris" as const, history_id: code.id, amount: code.amount }));
      const outcomes = async () => {
        const counts: Record<string, number> = {};
        for (const result of await reconciler.reconcile(pending))
          counts[result.outcome] = (counts[result.outcome] ?? 0) + 1;
        return counts;
      };
      expect(await outcomes()).toEqual({ applied: 20, pending: 20 });
      expect(await outcomes()).toEqual({ already_applied: 20, pending: 20 });
      expect(await appliedOf(prefix)).toEqual(Object.fromEntries(paid.map((code) => [`${prefix}-${code.id}`, 1])));
      expect([...new Set(origins.values())]).toEqual(["reconciliation"]);
      await journal.flush();
      const runs = (await journal.reconcileRuns(10)).filter((r) => r.startedAt >= startedAt);
      expect(runs.map((r) => r.outcomes)).toEqual([
        { already_applied: 20, pending: 20 },
        { applied: 20, pending: 20 },
      ]);
      expect(unexpectedErrors(log.errors)).toEqual([]);
      expect(switchWarnings(log.warnings).length).toBe(mode === "transaction" ? 1 : 0);
    } finally {
      await journal.close();
      await pool.end();
    }
  });
});
