// Issue 29's recovery scenarios of the inbox chaos campaign: how long after a fault is gone until every acknowledged
// event is applied, with each engine on its DEFAULT settings (no shortened hold, lock or stalled check).
//
// One scenario: two web instances in inbox mode (own engine connection, own receiver) take `events` QR payments
// (30 % delivered twice; a delivery answered anything but 200 is retried, as the provider does), while two worker
// processes (chaos-worker.mjs with `defaults: true`) apply them: a row of <schema>.effects written in the same
// PostgreSQL transaction as the idempotency record, after `workMs` of work, so each worker holds events at any time.
// Once a quarter of the events is applied and a worker holds some, the fault strikes:
// - "server-crash": the engine's server is SIGKILLed and started again 1.5 s later: PostgreSQL for pg-boss (the queue
//   and the shop's data alike), redis-server for BullMQ (AOF `appendfsync always`: what it acknowledged survives);
// - "worker-kill": a worker holding events is SIGKILLed and started again 1.5 s later, as a platform restarts it.
// Measured: recoverySeconds, from the server's (the restarted worker's) return until every event delivered before the
// return (acknowledged then, or refused during the outage and retried) is acknowledged and applied; sinceFaultSeconds,
// the same from the fault; how many acknowledged events were not applied at the return.
// Then the queue must drain (nothing left waiting or held), and each payment must have exactly one effect.
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { createWebhookReceiver, tokenVerifier, type WebhookReceiver } from "@kirimbayar/core/webhooks";
import type { TestPostgresServer } from "@kirimbayar/test-postgres-server";
import type { TestRedisServer } from "@kirimbayar/test-redis-server";
import { fixtures } from "@kirimbayar/testing";
import pg from "pg";
import PgBoss from "pg-boss";
import { createBullMqInbox } from "../../src/engines/bullmq.js";
import { createPgBossInbox } from "../../src/engines/pg-boss.js";
import type { InboxQueue } from "../../src/types.js";

export type Engine = "pg-boss" | "bullmq";
export type Fault = "server-crash" | "worker-kill";

/** The servers of the recovery scenarios: `redis` runs with AOF `appendfsync always`. */
export interface RecoveryServers {
  readonly postgres: TestPostgresServer;
  readonly redis: TestRedisServer;
}

export interface ScenarioOptions {
  /** QR payments delivered (each once, 30 % twice). */
  readonly events: number;
  /** How long the server or the worker stays away. */
  readonly downMs: number;
  /** Deliveries after the first 40 % are spread over this time, so that they go on through the fault. */
  readonly sendOverMs: number;
  /** The longest the scenario waits for every event to be applied after the return (then it reports and fails). */
  readonly waitMs: number;
}

/** The figures of one scenario, printed as `[inbox-chaos] {...}`. */
export interface RecoveryFigures {
  engine: Engine;
  fault: string;
  events: number;
  deliveries: number;
  deliveryStatuses: Record<string, number>;
  /** Deliveries in flight at some time between the fault and the return. */
  deliveriesMetOutage: number;
  /** Events the workers were running when the fault struck (their last report, at most 100 ms old). */
  heldAtFault: number;
  appliedAtFault: number;
  /** Events acknowledged (answered 200) by the return but not applied yet. */
  unappliedAtReturn: number;
  /** Events delivered before the return: those recoverySeconds waits for. */
  hitByFault: number;
  /** `null`: not every event delivered before the return was applied within `waitMs`. */
  recoverySeconds: number | null;
  sinceFaultSeconds: number | null;
  /** Every event of the scenario acknowledged and applied (within `waitMs` after the recovery). */
  allApplied: boolean;
  /** Still waiting or held in the queue after everything was applied (must drain to 0). */
  leftInQueue: number;
  lost: number;
  doubles: number;
  durationS: number;
}

const TOKEN = "inbox-recovery-token";
const CONCURRENCY = 10;
const SENDERS = 8;
/** Handler work inside the transaction: with 2 × 10 at once, each worker holds events whenever the fault strikes. */
const WORK_MS = { min: 20, max: 60 };
const WORKER_SCRIPT = fileURLToPath(new URL("./chaos-worker.mjs", import.meta.url));
const quiet = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (ms: number) => Math.round(ms / 100) / 10;

interface WorkerProcess {
  readonly name: string;
  child: ChildProcess;
  inFlight: number;
  ready: Promise<number>;
}

/** Waits until `check` holds, polling every 100 ms; returns false after `timeoutMs`. */
async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

function killAndWait(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}

/** Runs one scenario and returns its figures; every process and connection it opened is closed on return. */
export async function recoveryScenario(
  engine: Engine,
  fault: Fault,
  servers: RecoveryServers,
  options: ScenarioOptions,
): Promise<RecoveryFigures> {
  const started = Date.now();
  const schema = `recovery_${engine.replace("-", "")}_${fault.replace("-", "_")}`;
  const queue = `recovery-${engine}-${fault}`;
  const cleanups: (() => Promise<unknown>)[] = [];
  const workers: WorkerProcess[] = [];
  let running = true;
  try {
    const db = new pg.Pool({ connectionString: servers.postgres.url, max: 3, connectionTimeoutMillis: 2_000 });
    db.on("error", () => {});
    cleanups.push(() => db.end());
    await createShopTables(db, schema);

    // The worker side: two processes on the built packages, the engine on its default settings.
    const settings = (name: string) =>
      JSON.stringify({
        engine,
        pgUrl: servers.postgres.url,
        redisPort: servers.redis.port,
        queue,
        schema,
        name,
        concurrency: CONCURRENCY,
        defaults: true,
        workMs: WORK_MS,
      });
    const spawnWorker = (name: string): WorkerProcess => {
      const child = fork(WORKER_SCRIPT, [], {
        env: { ...process.env, CHAOS_WORKER: settings(name) },
        execArgv: [],
        stdio: ["ignore", "ignore", "pipe", "ipc"],
      });
      let stderr = "";
      child.stderr?.on("data", (chunk) => {
        stderr = (stderr + chunk).slice(-2_000);
      });
      const worker: WorkerProcess = {
        name,
        child,
        inFlight: 0,
        ready: new Promise((resolve, reject) => {
          child.on("message", (message: { type: string; inFlight: number }) => {
            worker.inFlight = message.inFlight;
            if (message.type === "ready") resolve(Date.now());
          });
          child.once("exit", (code, signal) => {
            if (running) reject(new Error(`${name} exited (${code ?? signal}) before it was ready: ${stderr.trim()}`));
          });
        }),
      };
      worker.ready.catch(() => {}); // awaited below; a later exit must not reject unobserved
      return worker;
    };
    // One after the other: pg-boss's createQueue is not safe against another process creating the same queue.
    for (const name of ["worker-a", "worker-b"]) {
      const worker = spawnWorker(name);
      workers.push(worker);
      await worker.ready;
    }

    // The web side: two instances, each with its own engine connection, on the engine's defaults.
    const webs = [
      await webInstance(engine, servers, queue, cleanups),
      await webInstance(engine, servers, queue, cleanups),
    ];
    const operator = webs[0]?.inbox as InboxQueue;

    // The provider: every event once, 30 % twice, each delivery retried until answered 200.
    const ids = Array.from({ length: options.events }, (_, i) => `${queue}-${i}`);
    const deliveries = [...ids, ...ids.filter(() => Math.random() < 0.3)].sort(() => Math.random() - 0.5);
    const statuses: Record<string, number> = {};
    const acknowledged = new Set<string>();
    const firstSent = new Set<string>();
    let sent = 0;
    let taken = 0;
    let outage: { from: number; to: number } | undefined;
    let metOutage = 0;
    // A backlog first (40 % at once), then the rest paced over `sendOverMs`, the last fifth not before the fault.
    const total = deliveries.length;
    const pauseMs = (options.sendOverMs * SENDERS) / (total * 0.6);
    const sendDeadline = Date.now() + options.waitMs + 60_000;
    const sender = async () => {
      for (let id = deliveries.shift(); id !== undefined && running; id = deliveries.shift()) {
        taken += 1;
        // The last fifth waits for the fault, so that deliveries meet it however fast the rest went.
        if (taken > total * 0.8) await until(async () => outage !== undefined || !running, 60_000);
        firstSent.add(id);
        const body = JSON.stringify(fixtures.qrisPaymentSuccess({ qris_history_id: id, amount: 10_000 }));
        for (let attempt = 0; attempt < 2_000 && running && Date.now() < sendDeadline; attempt++) {
          const web = webs[Math.floor(Math.random() * webs.length)] as (typeof webs)[number];
          const startedAt = Date.now();
          const answer = await web.receiver
            .fetch(
              new Request(`https://shop.example.co.id/webhooks/qris?token=${TOKEN}`, {
                method: "POST",
                headers: { "content-type": "application/json" },
                body,
              }),
            )
            .catch(() => new Response("thrown", { status: 599 }));
          await answer.text();
          sent += 1;
          if (outage !== undefined && startedAt < outage.to && Date.now() >= outage.from) metOutage += 1;
          statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
          if (answer.status === 200) {
            acknowledged.add(id);
            break;
          }
          await sleep(100 + Math.random() * 150); // the provider's retry, compressed
        }
        if (taken > total * 0.4) await sleep(pauseMs * (0.5 + Math.random()));
      }
    };
    const sending = Promise.all(Array.from({ length: SENDERS }, sender));

    const applied = async () => {
      const { rows } = await db.query(
        `SELECT payment_id, count(*)::int AS n FROM ${schema}.effects GROUP BY payment_id`,
      );
      return new Map(rows.map((row) => [String(row.payment_id), Number(row.n)]));
    };
    // The fault strikes mid-flight: a quarter applied, and a worker holding events.
    const victim = () => workers.find((worker) => worker.inFlight > 0);
    const armed = await until(
      async () => (await applied()).size >= options.events / 4 && victim() !== undefined,
      60_000,
    );
    if (!armed) throw new Error(`the scenario never reached its fault: ${(await applied()).size} applied`);
    const heldAtFault = workers.reduce((sum, worker) => sum + worker.inFlight, 0);
    const appliedAtFault = (await applied().catch(() => new Map())).size;
    const faultAt = Date.now();
    outage = { from: faultAt, to: Number.POSITIVE_INFINITY };
    let returnedAt: number;
    if (fault === "server-crash") {
      const server = engine === "pg-boss" ? servers.postgres : servers.redis;
      await server.crash();
      await sleep(options.downMs);
      await server.start();
      returnedAt = Date.now();
    } else {
      const killed = victim() as WorkerProcess;
      await killAndWait(killed.child);
      await sleep(options.downMs);
      const restarted = spawnWorker(killed.name);
      workers[workers.indexOf(killed)] = restarted;
      returnedAt = await restarted.ready;
    }
    outage = { from: faultAt, to: returnedAt };
    const ackedAtReturn = [...acknowledged];
    const appliedAtReturn = await applied().catch(() => new Map<string, number>());
    const unappliedAtReturn = ackedAtReturn.filter((id) => !appliedAtReturn.has(id)).length;

    // Recovered: every event delivered before the return (acknowledged then, or refused and retried since) is
    // acknowledged and applied. Then every event of the scenario.
    const hit = [...firstSent];
    let recoveredAt = Number.POSITIVE_INFINITY;
    const recovered = await until(async () => {
      if (!hit.every((id) => acknowledged.has(id))) return false;
      const done = await applied();
      if (!hit.every((id) => done.has(id))) return false;
      recoveredAt = Date.now();
      return true;
    }, options.waitMs);
    const allApplied = await until(async () => {
      if (acknowledged.size < ids.length) return false;
      const done = await applied();
      return ids.every((id) => done.has(id));
    }, options.waitMs);
    running = false;
    await sending;
    // Nothing may stay behind: the queue drains (a late run of an applied event must find it applied).
    const drained = await until(async () => {
      const stats = await operator.stats();
      return stats.waiting === 0 && stats.active === 0;
    }, 30_000);
    const stats = await operator.stats().catch(() => undefined);
    const counts = await applied();
    return {
      engine,
      fault: fault === "worker-kill" ? "worker-kill" : engine === "pg-boss" ? "postgres-crash" : "redis-crash",
      events: ids.length,
      deliveries: sent,
      deliveryStatuses: statuses,
      deliveriesMetOutage: metOutage,
      heldAtFault,
      appliedAtFault,
      unappliedAtReturn,
      hitByFault: hit.length,
      recoverySeconds: recovered ? seconds(Math.max(0, recoveredAt - returnedAt)) : null,
      sinceFaultSeconds: recovered ? seconds(recoveredAt - faultAt) : null,
      allApplied,
      leftInQueue: drained ? 0 : (stats?.waiting ?? -1) + (stats?.active ?? 0),
      lost: ids.filter((id) => !counts.has(id)).length,
      doubles: ids.filter((id) => (counts.get(id) ?? 0) > 1).length,
      durationS: seconds(Date.now() - started),
    };
  } finally {
    running = false;
    await Promise.all(workers.map((worker) => killAndWait(worker.child)));
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  }
}

/** The shop's tables as chaos-worker.mjs expects them (never broken, nothing poisoned here). */
async function createShopTables(db: pg.Pool, schema: string): Promise<void> {
  await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await db.query(`CREATE SCHEMA ${schema}`);
  await db.query(
    `CREATE TABLE ${schema}.effects (n serial PRIMARY KEY, payment_id text NOT NULL, amount int NOT NULL, worker text NOT NULL, at timestamptz NOT NULL DEFAULT now())`,
  );
  await db.query(`CREATE TABLE ${schema}.control (broken boolean NOT NULL, poison_fixed boolean NOT NULL)`);
  await db.query(`INSERT INTO ${schema}.control VALUES (false, false)`);
  await db.query(`CREATE TABLE ${schema}.poison (payment_id text PRIMARY KEY)`);
  await new PostgresIdempotencyStore({ pool: db, table: `${schema}.idempotency` }).ensureSchema();
}

/** One web instance on the engine's default settings. */
async function webInstance(
  engine: Engine,
  servers: RecoveryServers,
  queue: string,
  cleanups: (() => Promise<unknown>)[],
): Promise<{ inbox: InboxQueue; receiver: WebhookReceiver<"qris"> }> {
  let inbox: InboxQueue;
  if (engine === "pg-boss") {
    const boss = new PgBoss({ connectionString: servers.postgres.url, max: 3 });
    boss.on("error", () => {});
    await boss.start();
    cleanups.push(() => boss.stop({ graceful: false, wait: true, timeout: 2_000 }));
    inbox = await createPgBossInbox({ boss, name: queue });
  } else {
    inbox = await createBullMqInbox({ connection: { host: "127.0.0.1", port: servers.redis.port }, name: queue });
    cleanups.push(() => inbox.close());
  }
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query" })],
    inbox,
    logger: quiet,
  });
  return { inbox, receiver };
}
