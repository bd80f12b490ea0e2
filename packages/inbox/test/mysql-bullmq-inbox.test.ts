// A MySQL shop's durable inbox (issue 28): pg-boss is PostgreSQL-only, so a shop on MySQL or MariaDB runs the inbox on
// BullMQ, with its idempotency records in its own database. Over real HTTP, on a real MariaDB and a real redis-server:
// an Express app in inbox mode queues QR payment webhooks on BullMQ; a worker applies each through the
// MysqlIdempotencyStore in transactional mode, the handler marking the order paid through ctx.transaction (the
// mysql2 connection holding the transaction) so the effect commits with its record. A handler that fails once is
// retried by the worker; a payment whose webhook is lost is found by the reconciler through the same receiver (the
// same transaction); its webhook arriving late afterwards applies nothing twice.
import type { AddressInfo } from "node:net";
import { createReconciler, QrisClient } from "@kirimbayar/core";
import { MysqlIdempotencyStore } from "@kirimbayar/core/mysql";
import { tokenVerifier } from "@kirimbayar/core/webhooks";
import { createWebhookRouter } from "@kirimbayar/express";
import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import { createFakeProvider } from "@kirimbayar/testing";
import express from "express";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startInboxWorker } from "../src/worker.js";
import { bullMqEngine, type EngineUnderTest } from "./engines.js";

const TOKEN = "mysql-inbox-token";
const quiet = { warn: () => {}, error: () => {} };
let mariadb: TestMariaDbServer;
let engine: EngineUnderTest;
let pool: mysql.Pool;

beforeAll(async () => {
  [mariadb, engine] = await Promise.all([startMariaDbServer(), bullMqEngine()]);
  pool = mysql.createPool({ uri: mariadb.url, connectionLimit: 8 });
}, 120_000);

afterAll(async () => {
  await pool?.end();
  await engine?.close();
  await mariadb?.destroy();
}, 60_000);

async function until(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

it("applies QR payments once through BullMQ and MySQL transactions: queued, retried, reconciled, late duplicate ignored", async () => {
  await pool.query(
    "CREATE TABLE orders (history_id VARCHAR(64) PRIMARY KEY, paid_count INT NOT NULL DEFAULT 0) ENGINE=InnoDB",
  );
  const store = new MysqlIdempotencyStore({ pool, table: "webhook_events" });
  await store.ensureSchema();
  const inbox = await engine.inbox();
  const router = createWebhookRouter({
    qris: {
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      inbox,
      idempotency: { store, transactional: true },
      logger: quiet,
    },
  });
  const receiver = router.receivers.qris;
  if (receiver === undefined) throw new Error("no qris receiver");
  const failOnce = new Set<string>();
  const failed = new Set<string>();
  receiver.on("payment.success", async (event, ctx) => {
    const id = String(event.data.qris_history_id);
    const tx = ctx.transaction as mysql.PoolConnection;
    await tx.query("UPDATE orders SET paid_count = paid_count + 1 WHERE history_id = ?", [id]);
    if (failOnce.has(id) && !failed.has(id)) {
      failed.add(id);
      throw new Error("the shop's handler failed once after its write");
    }
  });

  // The webhook of the "lost" payment never reaches the app the first time (a 502 in front of it).
  const lost = new Set<string>();
  const app = express();
  app.use("/webhooks/qris", (request, response, next) => {
    let body = "";
    request.on("data", (chunk) => {
      body += chunk;
    });
    request.on("end", () => {
      const id = [...lost].find((candidate) => body.includes(`"${candidate}"`));
      if (id !== undefined) {
        lost.delete(id);
        response.status(502).end();
        return;
      }
      // Not lost: hand the exact bytes to the webhook router.
      (request as unknown as { body: Buffer }).body = Buffer.from(body);
      next();
    });
  });
  app.use("/webhooks", router);
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const port = (server.address() as AddressInfo).port;

  const provider = createFakeProvider();
  provider.qris.setWebhookUrl(`http://127.0.0.1:${port}/webhooks/qris?token=${TOKEN}`);
  const qris = new QrisClient({
    apiKey: provider.apiKeys.qris[0] ?? "",
    baseUrl: provider.baseUrl,
    fetch: provider.fetch,
  });
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) {
    const { data } = await qris.generateQris({ qris_id: 1, amount: 20_000 + i, output_type: "string" });
    ids.push(String(data.history_id));
  }
  for (const id of ids) await pool.query("INSERT INTO orders (history_id) VALUES (?)", [id]);
  const [normal, retried, reconciled] = [ids[0], ids[1], ids[2]] as [string, string, string];
  failOnce.add(retried);
  lost.add(reconciled);

  const worker = await startInboxWorker({
    inbox,
    receivers: router.receivers,
    retry: { baseDelayMs: 200, maxDelayMs: 500 },
    logger: quiet,
  });
  const paidCount = async (id: string) => {
    const [rows] = await pool.query<mysql.RowDataPacket[]>("SELECT paid_count FROM orders WHERE history_id = ?", [id]);
    return Number(rows[0]?.paid_count ?? 0);
  };
  try {
    for (const id of ids.slice(0, 5)) await provider.qris.pay(id);
    await provider.webhooks.settled();
    // Every delivery that reached the app was answered 200 "queued"; the lost one 502.
    const statuses = provider.deliveries.map((delivery) => delivery.status);
    expect(statuses.filter((status) => status === 502)).toHaveLength(1);
    expect(statuses.filter((status) => status === 200)).toHaveLength(4);
    await until(async () => (await paidCount(normal)) === 1 && (await paidCount(retried)) === 1, 20_000);
    expect(failed.has(retried)).toBe(true); // it failed once, rolled back, and the worker's retry applied it

    // The lost payment: the reconciler asks the provider and applies it through the same receiver and store.
    const reconciler = createReconciler({ receivers: { qris: receiver }, clients: { qris }, minIntervalPerIdMs: 0 });
    const unpaid = [];
    for (const id of ids.slice(0, 5)) if ((await paidCount(id)) === 0) unpaid.push(id);
    const results = await reconciler.reconcile(unpaid.map((id) => ({ source: "qris" as const, history_id: id })));
    const byId = new Map(
      results.map((result) => [String((result.reference as { history_id?: unknown }).history_id), result.outcome]),
    );
    expect(byId.get(reconciled)).toBe("applied");
    expect(await paidCount(reconciled)).toBe(1);

    // Its webhook's retry arrives later: queued, then a duplicate for the store; nothing applied twice.
    await provider.clock.advance(60_000);
    await provider.webhooks.settled();
    expect(provider.deliveries.filter((delivery) => delivery.status === 200)).toHaveLength(5);
    await until(async () => (await inbox.stats()).waiting + (await inbox.stats()).active === 0, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const id of ids.slice(0, 5)) expect(await paidCount(id)).toBe(1);
    expect(await paidCount(ids[5] as string)).toBe(0); // never paid, never applied
    const [records] = await pool.query<mysql.RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM webhook_events WHERE state = 'completed'",
    );
    expect(Number(records[0]?.n)).toBe(5);
  } finally {
    await worker.stop();
    server.closeAllConnections();
    server.close();
  }
}, 120_000);
