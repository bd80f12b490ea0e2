// A pg-boss inbox worker killed (SIGKILL: a deploy, an OOM kill) while it holds events: with the DEFAULT settings
// another worker applies every one of them within a minute (the hold of 30 s runs out after the last heartbeat,
// then a worker's reaper hands them back), each once. The killed worker is a process of its own
// (pg-boss-held-worker.mjs, on the built packages) whose handlers are stuck mid-transaction when it dies.
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import PgBoss from "pg-boss";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPgBossInbox } from "../src/engines/pg-boss.js";
import { startInboxWorker } from "../src/worker.js";
import { paidEvent, qrisDelivery } from "./support/deliveries.js";

const CHILD = fileURLToPath(new URL("./pg-boss-held-worker.mjs", import.meta.url));
const TOKEN = "killed-worker-token";
const EVENTS = 10; // startInboxWorker's default concurrency: the killed worker holds every one
const RECOVERY_BOUND_MS = 60_000;
const silent = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: TestPostgresServer;
let boss: PgBoss;
let pool: pg.Pool;
let child: ChildProcess | undefined;

beforeAll(async () => {
  server = await startPostgresServer();
  boss = new PgBoss({ connectionString: server.url, max: 4, schedule: false });
  boss.on("error", () => {});
  await boss.start();
  pool = new pg.Pool({ connectionString: server.url, max: 12 });
  pool.on("error", () => {});
  await pool.query("CREATE SCHEMA shop");
  await pool.query("CREATE TABLE shop.effects (payment_id text NOT NULL, worker text NOT NULL)");
  await new PostgresIdempotencyStore({ pool, table: "shop.idempotency" }).ensureSchema();
}, 60_000);
afterAll(async () => {
  child?.kill("SIGKILL");
  await pool?.end().catch(() => {});
  await boss?.stop({ graceful: false, wait: true, timeout: 2_000 }).catch(() => {});
  await server?.destroy();
}, 30_000);

const delivery = (id: string) => qrisDelivery(paidEvent(id), TOKEN);

it("applies a killed worker's held events within a minute with the default settings, each once", async () => {
  const queue = "killed";
  const inbox = await createPgBossInbox({ boss, name: queue, logger: silent }); // defaults
  const web = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    inbox,
    logger: silent,
  });
  const ids = Array.from({ length: EVENTS }, (_, i) => `killed-${i}`);
  for (const id of ids) expect((await web.handle(delivery(id))).status).toBe(200);

  // The worker to be killed takes every event and gets stuck in each handler.
  const killed = fork(CHILD, [], {
    env: { ...process.env, HELD_WORKER: JSON.stringify({ pgUrl: server.url, queue, schema: "shop" }) },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  child = killed;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the worker to kill never held every event")), 30_000);
    killed.on("message", (message: { type?: string; holding?: number }) => {
      if (message.type === "holding" && message.holding === EVENTS) {
        clearTimeout(timer);
        resolve();
      }
    });
    killed.once("exit", (code) => reject(new Error(`the worker to kill exited early (${code})`)));
  });
  expect((await inbox.stats()).active).toBe(EVENTS);

  // Another worker, defaults too, already running when the first one dies.
  const qris = createWebhookReceiver({
    source: "qris",
    insecureNoVerification: true,
    idempotency: { store: new PostgresIdempotencyStore({ pool, table: "shop.idempotency" }), transactional: true },
    logger: silent,
  }).on("payment.success", async (event, ctx) => {
    await ctx.transaction.query("INSERT INTO shop.effects (payment_id, worker) VALUES ($1, 'survivor')", [
      String(event.data.qris_history_id),
    ]);
  });
  const survivor = await startInboxWorker({ inbox, receivers: { qris }, logger: silent });
  try {
    const exited = new Promise((resolve) => killed.once("exit", resolve));
    killed.kill("SIGKILL");
    const killedAt = Date.now();
    await exited;
    let applied = 0;
    while (applied < EVENTS && Date.now() - killedAt < RECOVERY_BOUND_MS + 30_000) {
      await sleep(100);
      applied = (await pool.query("SELECT count(DISTINCT payment_id)::int AS n FROM shop.effects")).rows[0].n;
    }
    const recoveryMs = Date.now() - killedAt;
    console.log(
      `pg-boss inbox, worker SIGKILLed holding ${EVENTS} events: all applied ${recoveryMs} ms after the kill`,
    );
    expect(applied).toBe(EVENTS);
    expect(recoveryMs).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
    // Each once, by the survivor: the killed worker's transactions died with it.
    const { rows } = await pool.query("SELECT payment_id, worker FROM shop.effects ORDER BY payment_id");
    expect(rows).toHaveLength(EVENTS);
    expect(new Set(rows.map((row) => row.worker))).toEqual(new Set(["survivor"]));
    await expect.poll(async () => (await inbox.stats()).active, { timeout: 10_000 }).toBe(0);
  } finally {
    await survivor.stop({ timeoutMs: 5_000 });
  }
}, 150_000);
