// Issue 16's proof: every paid payment applied exactly once, none lost, when webhooks are missed for good.
// On the fake provider's clock, QR payments are paid over an hour while:
// - 20 % of them have all 4 webhook deliveries fail (the shop never hears of them by webhook);
// - the shop's PostgreSQL (a real server) is down for 30 minutes in the middle, longer than the provider retries;
// - on some deliveries the connection dies between the handler's write and the commit, as a SIGKILL of the app
//   would leave it (the delivery's backend is terminated from outside);
// - two app instances (own pools, own receivers) share the one database, deliveries alternating between them;
// - on some deliveries the handler hangs after its write, past its time limit (handlerTimeoutMs), and then tries
//   to write again: its transaction is abandoned, so neither write may ever count.
// A reconciler runs every 10 minutes over the orders still unpaid. `pnpm test` runs 200 payments; `pnpm chaos`
// (KIRIMBAYAR_CHAOS=full) 1,000. Recovery is measured from the database's return until every payment paid before it
// is applied (but those whose first handling the campaign will still kill or hang): in real seconds (goal ≤ 60 s) and
// on the provider's clock (at most one reconciliation interval: a payment whose deliveries all failed during the
// outage waits for the next run).
import { createReconciler, type PendingReference, QrisClient } from "@kirimbayar/core";
import { PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { createFakeProvider } from "@kirimbayar/testing";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";

const FULL = process.env.KIRIMBAYAR_CHAOS === "full";
const PAYMENTS = FULL ? 1_000 : 200;
const MINUTES_OF_PAYMENTS = 60;
const OUTAGE = { from: 20, to: 50 }; // fake minutes: 30 minutes, longer than the 21 minutes of retries
const RECONCILE_EVERY_MIN = 10;
const TOKEN = "never-lose-token";
const MINUTE = 60_000;

let server: TestPostgresServer;
const pools: pg.Pool[] = [];

beforeAll(async () => {
  server = await startPostgresServer();
}, 60_000);

afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end().catch(() => {})));
  await server?.destroy();
});

function newPool(max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: server.url, max, connectionTimeoutMillis: 1_000 });
  pool.on("error", () => {});
  pools.push(pool);
  return pool;
}

it(`applies each of ${PAYMENTS} paid QR payments exactly once through missed webhooks, a 30-minute database outage, connections killed before commit, handlers hung past their limit and two instances`, async () => {
  const setup = newPool(2);
  await setup.query(
    "CREATE TABLE orders (history_id text PRIMARY KEY, amount int NOT NULL, paid_count int NOT NULL DEFAULT 0)",
  );
  await new PostgresIdempotencyStore({ pool: setup, table: "webhook_events" }).ensureSchema();
  const killer = newPool(2);

  const allDeliveriesFail = new Set<string>();
  const killBeforeCommit = new Set<string>();
  const killed = new Set<string>();
  const hangOnce = new Set<string>();
  const hung = new Set<string>();
  const lateWritesRefused = new Set<string>();
  const appliedBy = new Map<string, { origin: string; at: number }[]>();

  const provider = createFakeProvider({
    rateLimit: false,
    qrisExpiryMs: 24 * 60 * MINUTE,
    webhooks: {
      qrisUrl: `https://shop.example.co.id/webhooks/qris?token=${TOKEN}`,
      fetch: async (request) => {
        const body = (await request.clone().json()) as { data?: { qris_history_id?: unknown } };
        const id = String(body.data?.qris_history_id);
        if (allDeliveriesFail.has(id)) return new Response("bad gateway", { status: 502 });
        const instance = instances[deliveries++ % instances.length] as (typeof instances)[number];
        const answer = await instance.receiver.fetch(request);
        if (answer.status === 200 && returnedAt !== undefined) firstOkAfterReturn ??= performance.now();
        return answer;
      },
    },
  });
  let deliveries = 0;
  // The database's return: real time and provider clock; then when every payment paid before it was applied.
  let returnedAt: number | undefined;
  let returnedAtClock = 0;
  let firstOkAfterReturn: number | undefined;
  let recoveredAt: number | undefined;
  let recoveredAtClock: number | undefined;
  let paidBeforeReturn: string[] = [];
  let faultedAgain = 0;

  // Two app instances: own pool, own store object, own receiver; one database.
  const instances = [0, 1].map((n) => {
    const pool = newPool(5);
    const store = new PostgresIdempotencyStore({ pool, table: "webhook_events" });
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: [TOKEN], in: "query" })],
      idempotency: { store, transactional: true, operationTimeoutMs: 2_000, handlerTimeoutMs: 300 },
      logger: { error: () => {}, warn: () => {} },
    }).on("payment.success", async (event, ctx) => {
      const id = String(event.data.qris_history_id);
      const tx = ctx.transaction as pg.PoolClient;
      await tx.query("UPDATE orders SET paid_count = paid_count + 1 WHERE history_id = $1", [id]);
      if (killBeforeCommit.has(id) && !killed.has(id)) {
        killed.add(id);
        const { rows } = await tx.query("SELECT pg_backend_pid() AS pid");
        await killer.query("SELECT pg_terminate_backend($1)", [rows[0]?.pid]);
      }
      if (hangOnce.has(id) && !hung.has(id)) {
        hung.add(id);
        // Stuck (a call that never answers) until the receiver gives up on it, then goes on regardless.
        await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
        try {
          await tx.query("UPDATE orders SET paid_count = paid_count + 1 WHERE history_id = $1", [id]);
        } catch {
          lateWritesRefused.add(id);
        }
        return;
      }
      // Seen by this process only once the transaction commits (checked against the table at the end).
      const list = appliedBy.get(id) ?? [];
      list.push({ origin: `${ctx.origin}@${n}`, at: provider.clock.now() });
      appliedBy.set(id, list);
    });
    return { receiver };
  });

  const qris = new QrisClient({
    apiKey: provider.apiKeys.qris[0] ?? "",
    baseUrl: provider.baseUrl,
    fetch: provider.fetch,
  });
  const reconciler = createReconciler({
    receivers: { qris: (instances[0] as (typeof instances)[number]).receiver },
    clients: { qris },
    concurrency: 4,
    minIntervalPerIdMs: 3_000,
    clock: () => provider.clock.now(),
  });

  // The shop's orders, each with its QR code; 90 % will be paid.
  const codes: { id: string; amount: number; paid: boolean }[] = [];
  for (let i = 0; i < PAYMENTS; i++) {
    const { data } = await qris.generateQris({ qris_id: 1, amount: 10_000 + i, output_type: "string" });
    const id = String(data.history_id);
    await setup.query("INSERT INTO orders (history_id, amount) VALUES ($1, $2)", [id, data.final_amount]);
    const paid = i % 10 !== 9;
    codes.push({ id, amount: data.final_amount, paid });
    if (paid && i % 5 === 0) allDeliveriesFail.add(id);
    if (paid && i % 20 === 3) killBeforeCommit.add(id);
    if (paid && i % 20 === 7) hangOnce.add(id);
  }
  const paidCodes = codes.filter((code) => code.paid);
  const paidAt = new Map<string, number>();
  const reconcileRuns: { at: number; applied: number; failed: number }[] = [];

  async function reconcileOnce(): Promise<void> {
    let pending: PendingReference[];
    try {
      const { rows } = await setup.query("SELECT history_id, amount FROM orders WHERE paid_count = 0");
      pending = rows.map((row) => ({ source: "qris", history_id: String(row.history_id), amount: Number(row.amount) }));
    } catch {
      reconcileRuns.push({ at: provider.clock.now(), applied: 0, failed: -1 }); // database down: next interval
      return;
    }
    const results = await reconciler.reconcile(pending);
    reconcileRuns.push({
      at: provider.clock.now(),
      applied: results.filter((result) => result.outcome === "applied").length,
      failed: results.filter((result) => result.outcome === "failed").length,
    });
  }

  async function checkRecovered(): Promise<void> {
    if (returnedAt === undefined || recoveredAt !== undefined) return;
    const { rows } = await setup
      .query("SELECT count(*)::int AS n FROM orders WHERE paid_count = 0 AND history_id = ANY($1)", [paidBeforeReturn])
      .catch(() => ({ rows: [{ n: -1 }] }));
    if (rows[0]?.n !== 0) return;
    recoveredAt = performance.now();
    recoveredAtClock = provider.clock.now();
  }

  const perMinute = Math.ceil(paidCodes.length / MINUTES_OF_PAYMENTS);
  const totalMinutes = MINUTES_OF_PAYMENTS + 40; // then the last retries and reconciliations
  for (let minute = 0; minute < totalMinutes; minute++) {
    if (minute === OUTAGE.from) await server.stop();
    if (minute === OUTAGE.to) {
      await server.start();
      returnedAt = performance.now();
      returnedAtClock = provider.clock.now();
      // Left out: payments whose first handling the campaign still kills or hangs on purpose (a second fault after
      // the return, not a recovery): they wait for the next delivery or reconciliation by design.
      paidBeforeReturn = [...paidAt.keys()].filter(
        (id) => !(killBeforeCommit.has(id) && !killed.has(id)) && !(hangOnce.has(id) && !hung.has(id)),
      );
      faultedAgain = paidAt.size - paidBeforeReturn.length;
    }
    for (const code of paidCodes.slice(minute * perMinute, (minute + 1) * perMinute)) {
      paidAt.set(code.id, provider.clock.now());
      await provider.qris.pay(code.id);
    }
    await provider.webhooks.settled();
    if (minute % RECONCILE_EVERY_MIN === RECONCILE_EVERY_MIN - 1) await reconcileOnce();
    await checkRecovered();
    await provider.clock.advance(MINUTE);
    await provider.webhooks.settled();
    await checkRecovered();
  }

  // The database is the truth: exactly once for every paid payment, never for an unpaid one.
  const { rows } = await setup.query("SELECT history_id, paid_count FROM orders");
  const counts = new Map(rows.map((row) => [String(row.history_id), Number(row.paid_count)]));
  const doubles = paidCodes.filter((code) => (counts.get(code.id) ?? 0) > 1).length;
  const lost = paidCodes.filter((code) => (counts.get(code.id) ?? 0) === 0).length;
  const wronglyApplied = codes.filter((code) => !code.paid && (counts.get(code.id) ?? 0) !== 0).length;
  const byReconciliation = paidCodes.filter(
    (code) =>
      counts.get(code.id) === 1 && (appliedBy.get(code.id) ?? []).some((a) => a.origin.startsWith("reconciliation")),
  );
  // A missed payment (all webhooks failed) paid while the database was up is found by the next run: within one
  // interval of its payment.
  const missedOutsideOutage = paidCodes.filter((code) => {
    const at = (paidAt.get(code.id) ?? 0) / MINUTE - (paidAt.get(paidCodes[0]?.id ?? "") ?? 0) / MINUTE;
    return allDeliveriesFail.has(code.id) && (at < OUTAGE.from - RECONCILE_EVERY_MIN || at >= OUTAGE.to);
  });
  const slowest = Math.max(
    ...missedOutsideOutage.map((code) => {
      const applied = (appliedBy.get(code.id) ?? []).find((a) => a.origin.startsWith("reconciliation"));
      return applied === undefined ? Number.POSITIVE_INFINITY : (applied.at - (paidAt.get(code.id) ?? 0)) / MINUTE;
    }),
  );
  const figures = {
    payments: PAYMENTS,
    paid: paidCodes.length,
    allDeliveriesFailed: allDeliveriesFail.size,
    killedBeforeCommit: killed.size,
    hungPastTheirLimit: hung.size,
    lateWritesRefused: lateWritesRefused.size,
    deliveryAttempts: provider.deliveries.length,
    foundByReconciliation: byReconciliation.length,
    slowestFindMinutes: slowest,
    paidBeforeReturn: paidBeforeReturn.length,
    faultedAgainAfterReturn: faultedAgain,
    recoverySeconds:
      recoveredAt === undefined || returnedAt === undefined ? null : Math.round((recoveredAt - returnedAt) / 100) / 10,
    recoveryClockMinutes: recoveredAtClock === undefined ? null : (recoveredAtClock - returnedAtClock) / MINUTE,
    firstAnswer200AfterReturnS:
      firstOkAfterReturn === undefined || returnedAt === undefined
        ? null
        : Math.round((firstOkAfterReturn - returnedAt) / 100) / 10,
    doubles,
    lost,
    wronglyApplied,
  };
  console.log(`[never-lose] ${JSON.stringify(figures)}`);
  expect({ doubles, lost, wronglyApplied }).toEqual({ doubles: 0, lost: 0, wronglyApplied: 0 });
  expect(killed.size).toBeGreaterThan(0);
  expect(hung.size).toBeGreaterThan(0);
  expect(lateWritesRefused.size).toBe(hung.size);
  expect(provider.deliveries.some((d) => d.status === 503)).toBe(true); // the outage did refuse deliveries
  expect(byReconciliation.length).toBeGreaterThanOrEqual(allDeliveriesFail.size);
  expect(slowest).toBeLessThanOrEqual(RECONCILE_EVERY_MIN);
  // Recovered: every payment paid before the database's return applied within 60 s of it (real time), at most one
  // reconciliation interval later on the provider's clock; the first delivery after the return was answered 200.
  expect(figures.recoverySeconds).not.toBeNull();
  expect(figures.recoverySeconds).toBeLessThanOrEqual(60);
  expect(figures.recoveryClockMinutes).toBeLessThanOrEqual(RECONCILE_EVERY_MIN);
  expect(figures.firstAnswer200AfterReturnS).not.toBeNull();
}, 600_000);
