// One rolling deploy, measured: two instances of an example shop behind a real load balancer on a shared store, the
// fake provider paying QR codes and delivering their webhooks through the balancer on its real retry schedule
// (compressed), one instance stopped mid-campaign and replaced by a new one. Then the outcome of every event, read
// from the shop (its orders) and from the store itself.
import { createFakeProvider, type FakeProvider } from "@kirimbayar/testing";
import type IORedis from "ioredis";
import pg from "pg";
import { freePort, type LoadBalancerKind, startLoadBalancer } from "./load-balancer.js";
import { killAll, type ShopFramework, type ShopProcess, startShopProcess } from "./shop-process.js";

const WEBHOOK_SECRET = "rolling-deploy-webhook-secret-0123";
const CALLBACK_API_KEY = "rolling-deploy-callback-key-0123";
/** The provider's real schedule (1, 5 and 15 minutes), sixty times faster. */
export const COMPRESSED_RETRY_DELAYS_MS: readonly number[] = [1_000, 5_000, 15_000];

/** The shared services of a test file: a PostgreSQL server, and a Redis server for the runs whose records are there. */
export interface Services {
  /** `postgres://…/postgres`; each run gets a database of its own. */
  readonly postgresUrl: string;
  readonly redisUrl?: string;
  readonly redis?: IORedis;
}

/** One rolling deploy to run. */
export interface RollingDeployOptions {
  readonly framework: ShopFramework;
  readonly loadBalancer: LoadBalancerKind;
  /** Where the webhooks' idempotency records are: Redis (handlers not transactional) or PostgreSQL (transactional). */
  readonly records: "redis" | "postgres";
  /** QR payments in the campaign, one every `payEveryMs`. */
  readonly events: number;
  readonly payEveryMs: number;
  /** Share of the events the provider delivers twice. */
  readonly duplicateShare: number;
  /** How far through the payments the first instance is stopped (0.4: after 40 % of them). */
  readonly stopAt: number;
  /**
   * `true`: the instance gets SIGTERM and shuts down as the recipe says. `false`: it ends at once, as a plain
   * `process.on("SIGTERM", () => process.exit(0))` (or no handler at all) does: SIGKILL has the same effect on
   * everything outside the process.
   */
  readonly recipe: boolean;
  /** SHOP_SHUTDOWN_GRACE_MS, SHOP_SHUTDOWN_UNREADY_DELAY_MS and SHOP_WEBHOOK_DELAY_MS of the instances. */
  readonly graceMs: number;
  readonly unreadyDelayMs: number;
  readonly handlerDelayMs: number;
  /** A number making this run's ids and database its own. */
  readonly run: number;
  /** `pg-boss`: the shops queue each webhook in the durable inbox (SHOP_INBOX) and their workers apply it. */
  readonly inbox?: "pg-boss";
}

/** What one rolling deploy did. */
export interface RollingDeployResult {
  readonly label: string;
  readonly events: number;
  /** Events whose order was never paid once every delivery and retry was over. */
  readonly lost: number;
  /** Events applied more than once (the order's log holds the payment twice). */
  readonly double: number;
  /** Events the provider got a 200 for, whose effect is not there. */
  readonly okWithoutEffect: number;
  /** Keys still "in progress" in the store once the campaign is over (Redis `p:` records, `processing` rows). */
  readonly inProgressAfter: number;
  /** Sessions still holding a transaction open in PostgreSQL then. */
  readonly openTransactionsAfter: number;
  /** Inbox runs: events still held "active" by a worker in pg-boss then (a stopped worker's, not handed back). */
  readonly activeInboxJobsAfter: number;
  /** Attempts the provider saw fail (not 200, or no answer), and deliveries it needed more than one attempt for. */
  readonly failedAttempts: number;
  /** The failed attempts by answer (`409`, `500`, `503`, `error` for no answer). */
  readonly failedBy: Readonly<Record<string, number>>;
  readonly retriedEvents: number;
  /** From the stop signal to the process's exit. */
  readonly stopToExitMs: number;
  /** The slowest event: from its payment to its effect. */
  readonly worstPayToAppliedMs: number;
  /** The median of the same. */
  readonly medianPayToAppliedMs: number;
  /** From the stop signal to the last effect applied. */
  readonly lastAppliedAfterStopMs: number;
  /** The stopped instance's own report (recipe runs), as it logged it. */
  readonly shutdownReport: Record<string, unknown> | undefined;
}

interface Order {
  id: string;
  status: string;
  payments: { method: string; history_id?: string }[];
  events: { at: string; type: string }[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function json<T>(response: Response): Promise<T> {
  const text = await response.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`${response.status} ${text.slice(0, 300)}`);
  }
}

/** Runs one rolling deploy and measures it. Starts and stops everything but `services`. */
export async function runRollingDeploy(
  services: Services,
  options: RollingDeployOptions,
): Promise<RollingDeployResult> {
  const label =
    `${options.framework}${options.inbox === undefined ? "" : ` + ${options.inbox} inbox worker`} behind ` +
    `${options.loadBalancer}, records in ${options.records}, ` +
    `${options.recipe ? "graceful shutdown" : "no shutdown handling"}`;
  const database = `rolling_${options.run}`;
  const admin = new pg.Pool({ connectionString: services.postgresUrl, max: 2 });
  admin.on("error", () => {});
  await admin.query(`DROP DATABASE IF EXISTS ${database}`);
  await admin.query(`CREATE DATABASE ${database}`);
  const databaseUrl = services.postgresUrl.replace(/\/postgres$/, `/${database}`);
  const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  db.on("error", () => {});
  if (options.records === "redis") await services.redis?.flushall();

  const ports = [await freePort(), await freePort(), await freePort()] as const;
  const balancer = await startLoadBalancer(options.loadBalancer, { backends: ports });
  const provider: FakeProvider = createFakeProvider({
    clock: "real",
    seed: `rolling-${options.run}`,
    rateLimit: false,
    recordRequests: false,
    webhooks: {
      qrisUrl: `${balancer.url}/webhooks/qris?token=${WEBHOOK_SECRET}`,
      retryDelaysMs: COMPRESSED_RETRY_DELAYS_MS,
      timeoutMs: 10_000,
    },
  });
  const providerServer = await provider.listen();
  const env: Record<string, string> = {
    KIRIMBAYAR_PAYMENT_API_KEY: provider.apiKeys.payment[0] ?? "",
    KIRIMBAYAR_PAYMENT_BASE_URL: providerServer.url,
    KIRIMBAYAR_QRIS_API_KEY: provider.apiKeys.qris[0] ?? "",
    KIRIMBAYAR_QRIS_ID: "1",
    KIRIMBAYAR_CALLBACK_API_KEY: CALLBACK_API_KEY,
    KIRIMBAYAR_SHIPPING_API_KEY: provider.apiKeys.shipping[0] ?? "",
    KIRIMBAYAR_SHIPPING_BASE_URL: providerServer.url,
    KIRIMBAYAR_WEBHOOK_SECRET: WEBHOOK_SECRET,
    KIRIMBAYAR_CONSOLE_PASSWORD: "rolling-deploy-console",
    SHOP_ORIGIN_ID: "1520101",
    PUBLIC_BASE_URL: balancer.url,
    SHOP_RECONCILE_EVERY_MS: "0",
    SHOP_DATABASE: "postgres",
    DATABASE_URL: databaseUrl,
    SHOP_SHUTDOWN_GRACE_MS: String(options.graceMs),
    SHOP_SHUTDOWN_UNREADY_DELAY_MS: String(options.unreadyDelayMs),
    SHOP_WEBHOOK_DELAY_MS: String(options.handlerDelayMs),
    ...(options.records === "redis" && services.redisUrl !== undefined ? { REDIS_URL: services.redisUrl } : {}),
    ...(options.inbox === undefined ? {} : { SHOP_INBOX: options.inbox }),
  };
  const shops: ShopProcess[] = [];
  try {
    // One after the other: each creates the tables it misses at start.
    const leaving = await startShopProcess(options.framework, "leaving", ports[0], env);
    shops.push(leaving);
    shops.push(await startShopProcess(options.framework, "staying", ports[1], env));
    await untilServing(balancer.url, 2);

    const orderIds = await placeOrders(balancer.url, options.events);
    const historyIds = [...orderIds.keys()];
    const paidAt = new Map<string, number>();
    const payments: Promise<unknown>[] = [];
    let stopped: Promise<{ stopAt: number; exitAt: number }> | undefined;
    const stopIndex = Math.floor(options.events * options.stopAt);
    let duplicates = 0;
    for (const [index, historyId] of historyIds.entries()) {
      if (index === stopIndex) {
        stopped = (async () => {
          const stopAt = performance.now();
          leaving.kill(options.recipe ? "SIGTERM" : "SIGKILL");
          // The replacement starts at once, as an orchestrator starts the new version beside the old one.
          const replacement = startShopProcess(options.framework, "replacement", ports[2], env).then((shop) => {
            shops.push(shop);
          });
          const { at } = await leaving.exited;
          await replacement;
          return { stopAt, exitAt: at };
        })();
      }
      // The share of duplicates spread evenly over the campaign.
      if ((index + 1) * options.duplicateShare >= duplicates + 1) {
        duplicates += 1;
        provider.webhooks.duplicateNext(1);
      }
      paidAt.set(historyId, Date.now());
      payments.push(provider.qris.pay(historyId));
      await sleep(options.payEveryMs);
    }
    await Promise.all(payments);
    const { stopAt, exitAt } = await (stopped as Promise<{ stopAt: number; exitAt: number }>);
    const stopAtEpoch = Date.now() - (performance.now() - stopAt);
    await untilDeliveriesSettled(provider);
    // With an inbox, a 200 means queued: the effects follow as the workers run the events (a stopped worker's come
    // back once handed back, or once its hold runs out: 30 s, and the reaper's 5 s).
    const orders = await untilApplied(balancer.url, orderIds, options.inbox === undefined ? 0 : 45_000);
    let lost = 0;
    let double = 0;
    let okWithoutEffect = 0;
    const latencies: number[] = [];
    let lastApplied = 0;
    const acknowledged = new Set(
      provider.deliveries.filter((attempt) => attempt.acknowledged).map((attempt) => historyIdOf(attempt.body)),
    );
    for (const historyId of historyIds) {
      const order = orders.get(historyId);
      const applied = order?.events.filter((event) => event.type === "payment.success") ?? [];
      if (applied.length === 0) {
        lost += 1;
        if (acknowledged.has(historyId)) okWithoutEffect += 1;
        continue;
      }
      if (applied.length > 1) double += 1;
      const at = Date.parse(applied[0]?.at ?? "");
      latencies.push(at - (paidAt.get(historyId) ?? at));
      lastApplied = Math.max(lastApplied, at);
    }
    latencies.sort((a, b) => a - b);
    const attemptsByEvent = new Map<string, number>();
    for (const attempt of provider.deliveries) {
      const id = historyIdOf(attempt.body);
      attemptsByEvent.set(id, Math.max(attemptsByEvent.get(id) ?? 0, attempt.attempt));
    }
    const result: RollingDeployResult = {
      label,
      events: historyIds.length,
      lost,
      double,
      okWithoutEffect,
      inProgressAfter: await inProgressKeys(options.records, services, db),
      openTransactionsAfter: await openTransactions(db, database),
      activeInboxJobsAfter: options.inbox === undefined ? 0 : await activeInboxJobs(db),
      failedAttempts: provider.deliveries.filter((attempt) => attempt.status !== 200).length,
      failedBy: countBy(
        provider.deliveries.filter((attempt) => attempt.status !== 200),
        (attempt) => (attempt.status === undefined ? "error" : String(attempt.status)),
      ),
      retriedEvents: [...attemptsByEvent.values()].filter((attempts) => attempts > 1).length,
      stopToExitMs: Math.round(exitAt - stopAt),
      worstPayToAppliedMs: latencies.at(-1) ?? Number.NaN,
      medianPayToAppliedMs: latencies[Math.floor(latencies.length / 2)] ?? Number.NaN,
      lastAppliedAfterStopMs: Math.round(lastApplied - stopAtEpoch),
      shutdownReport: shutdownReportOf(leaving.logs()),
    };
    return result;
  } catch (error) {
    const output = shops.map((shop) => `--- ${shop.name}:\n${shop.logs().slice(-3_000)}`).join("\n");
    throw new Error(`${label}: ${(error as Error).message}\n${output}\n--- ${balancer.kind}:\n${balancer.logs()}`, {
      cause: error,
    });
  } finally {
    await killAll(shops);
    await provider.webhooks.settled().catch(() => {});
    await providerServer.close();
    provider.reset();
    await balancer.stop();
    await db.end();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
    await admin.end();
  }
}

/** Prints a result on one line, for the test log and the docs. */
export function describeResult(result: RollingDeployResult): string {
  const report = result.shutdownReport;
  const shutdown =
    report === undefined
      ? ""
      : `; shutdown: held at stop ${report.heldAtStop}, at grace end ${report.heldAtGraceEnd}, released ` +
        `${report.released}, rolled back ${report.rolledBack}, refused ${report.refused}, drain ${report.drainMs} ms`;
  return (
    `${result.label}: ${result.events} events, lost ${result.lost}, double ${result.double}, 200 without effect ` +
    `${result.okWithoutEffect}, in progress after ${result.inProgressAfter}, open transactions after ` +
    `${result.openTransactionsAfter}${result.label.includes("inbox") ? `, inbox events active after ${result.activeInboxJobsAfter}` : ""}; provider saw ${result.failedAttempts} failed attempts ${JSON.stringify(result.failedBy)}, ${result.retriedEvents} ` +
    `events retried; stop to exit ${result.stopToExitMs} ms; pay to applied median ${result.medianPayToAppliedMs} ms, ` +
    `worst ${result.worstPayToAppliedMs} ms; last applied ${result.lastAppliedAfterStopMs} ms after the stop${shutdown}`
  );
}

function countBy<T>(items: readonly T[], keyOf: (item: T) => string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) counts[keyOf(item)] = (counts[keyOf(item)] ?? 0) + 1;
  return counts;
}

function historyIdOf(body: string): string {
  return String((JSON.parse(body) as { data: { qris_history_id: unknown } }).data.qris_history_id);
}

/** Waits until the balancer reaches `instances` different instances (HAProxy's checks have marked them up). */
async function untilServing(url: string, instances: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const answers = await Promise.all(
      Array.from({ length: instances * 2 }, () =>
        fetch(`${url}/readyz`).then(
          (response) => response.status,
          () => 0,
        ),
      ),
    );
    if (answers.every((status) => status === 200)) return;
    await sleep(100);
  }
  throw new Error("the load balancer did not reach the instances within 10 s");
}

const cart = {
  customer: { name: "Sari Wulandari", email: "sari@example.test", phone: "081234567890" },
  items: [{ name: "Kopi Gayo 250 g", quantity: 2, price: 85_000, weight: 250 }],
};

/** Places `count` orders through the balancer, each paid by QRIS; returns their order ids by QR history id. */
async function placeOrders(url: string, count: number): Promise<Map<string, string>> {
  const found = await json<{ data: { id: number; label: string }[] }>(
    await fetch(`${url}/shipping/destinations?search=braga`),
  );
  const destination = found.data.find((d) => d.label.startsWith("BRAGA"))?.id;
  if (destination === undefined) throw new Error("no destination BRAGA");
  const orders = new Map<string, string>();
  for (let start = 0; start < count; start += 4) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(4, count - start) }, async () => {
        const response = await fetch(`${url}/orders`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ ...cart, destination_id: destination, courier: "sicepat", service: "REG" }),
        });
        const created = await json<{ data: { order: Order } }>(response);
        const payment = created.data.order.payments[0];
        if (payment?.history_id === undefined) throw new Error("the order has no QRIS payment");
        return [payment.history_id, created.data.order.id] as const;
      }),
    );
    for (const [historyId, orderId] of batch) orders.set(historyId, orderId);
  }
  return orders;
}

/** Waits until every delivery was acknowledged or ran out of retries (bounded by the schedule, plus 15 s). */
async function untilDeliveriesSettled(provider: FakeProvider): Promise<void> {
  const limit = Date.now() + COMPRESSED_RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0) + 15_000;
  for (;;) {
    const byEvent = new Map<string, { done: boolean }>();
    for (const attempt of provider.deliveries) {
      const event = byEvent.get(attempt.deliveryId) ?? { done: false };
      const answered = attempt.status !== undefined || attempt.error !== undefined;
      const last = answered && attempt.nextAttemptAt === undefined && !attempt.duplicate;
      if (attempt.acknowledged || (last && attempt.attempt > COMPRESSED_RETRY_DELAYS_MS.length)) event.done = true;
      byEvent.set(attempt.deliveryId, event);
    }
    const open = [...byEvent.values()].filter((event) => !event.done).length;
    if (open === 0) return;
    if (Date.now() > limit) throw new Error(`${open} events still had deliveries due after the retry schedule`);
    await sleep(100);
  }
}

/** The orders once every one shows its payment, or as they are after `withinMs`. */
async function untilApplied(
  url: string,
  orderIds: ReadonlyMap<string, string>,
  withinMs: number,
): Promise<Map<string, Order>> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const orders = await readOrders(url, orderIds);
    const waiting = [...orders.values()].filter((order) => !order.events.some((e) => e.type === "payment.success"));
    if (waiting.length === 0 || Date.now() >= deadline) return orders;
    await sleep(200);
  }
}

/** Events a worker holds in pg-boss (state `active`). */
async function activeInboxJobs(db: pg.Pool): Promise<number> {
  const { rows } = await db.query<{ count: string }>(
    "SELECT count(*) FROM pgboss.job WHERE name = 'kirimbayar-inbox' AND state = 'active'",
  );
  return Number(rows[0]?.count ?? 0);
}

/** Each order as the shop shows it now, by QR history id. */
async function readOrders(url: string, orderIds: ReadonlyMap<string, string>): Promise<Map<string, Order>> {
  const byHistoryId = new Map<string, Order>();
  for (const [historyId, orderId] of orderIds) {
    const response = await fetch(`${url}/orders/${encodeURIComponent(orderId)}`);
    byHistoryId.set(historyId, (await json<{ data: Order }>(response)).data);
  }
  return byHistoryId;
}

/** Keys in progress in the store itself: Redis records of a live lease (`p:<owner>`), `processing` rows. */
async function inProgressKeys(records: "redis" | "postgres", services: Services, db: pg.Pool): Promise<number> {
  if (records === "redis") {
    const redis = services.redis;
    if (redis === undefined) throw new Error("no Redis client");
    let inProgress = 0;
    let cursor = "0";
    do {
      const [next, keys] = await redis.scan(cursor, "MATCH", "kirimbayar:webhook:*", "COUNT", 500);
      cursor = next;
      for (const key of keys) if ((await redis.get(key))?.startsWith("p:")) inProgress += 1;
    } while (cursor !== "0");
    return inProgress;
  }
  const { rows } = await db.query<{ count: string }>(
    "SELECT count(*) FROM shop_webhook_events WHERE state = 'processing' AND lease_expires_at > now()",
  );
  return Number(rows[0]?.count ?? 0);
}

/** Sessions of the run's database with a transaction open (an instance's delivery never ended). */
async function openTransactions(db: pg.Pool, database: string): Promise<number> {
  const { rows } = await db.query<{ count: string }>(
    "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'",
    [database],
  );
  return Number(rows[0]?.count ?? 0);
}

/** The stopped instance's shutdown report, from the line it logged (`... stopped: {json}` or `drained: {json}`). */
function shutdownReportOf(logs: string): Record<string, unknown> | undefined {
  const line = /(?:stopped|drained): (\{.*\})/.exec(logs);
  return line?.[1] === undefined ? undefined : (JSON.parse(line[1]) as Record<string, unknown>);
}
