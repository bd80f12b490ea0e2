import type { InboxMessage } from "@kirimbayar/core/webhooks";
import type {
  ConsumeOptions,
  DeadLetter,
  InboxAttempt,
  InboxConsumer,
  InboxDelivery,
  InboxEnqueueResult,
  InboxQueue,
  InboxStats,
  InboxVerdict,
} from "../types.js";
import { uuidOfKey } from "./job-ids.js";

/** The slice of a pg-boss 10 instance the inbox uses (pass your started `PgBoss`). */
export interface PgBossLike {
  send(name: string, data: object, options: object): Promise<string | null>;
  fetch(name: string, options: object): Promise<PgBossJob[]>;
  complete(name: string, id: string | string[], data?: object): Promise<unknown>;
  fail(name: string, id: string, data?: object): Promise<unknown>;
  deleteJob(name: string, id: string): Promise<unknown>;
  getJobById(name: string, id: string): Promise<PgBossJob | null>;
  createQueue(name: string, options?: object): Promise<void>;
  getQueue(name: string): Promise<object | null>;
  getDb(): { executeSql(text: string, values: unknown[]): Promise<{ rows: Record<string, unknown>[] }> };
}

/** A connection pg-boss can run its statements on (pg-boss's `Db`): wrap the `pg` client holding your transaction. */
export interface PgBossDb {
  executeSql(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

/** The pg-boss inbox: an {@link InboxQueue} that can also enqueue inside your own database transaction. */
export interface PgBossInbox extends InboxQueue {
  /**
   * Writes `message` with your transaction's connection: the event is queued if and only if your transaction
   * commits (e.g. an event your code records together with an order it writes).
   *
   * @example
   * await client.query("BEGIN");
   * await client.query("UPDATE orders SET ...");
   * await inbox.enqueueIn({ executeSql: (text, values) => client.query(text, values) }, message);
   * await client.query("COMMIT");
   */
  enqueueIn(db: PgBossDb, message: InboxMessage): Promise<InboxEnqueueResult>;
}

/** A job as pg-boss returns it with `includeMetadata`. */
export interface PgBossJob {
  id: string;
  data: unknown;
  retryCount?: number;
  output?: unknown;
  createdOn?: Date | string;
}

/** Options of {@link createPgBossInbox}. */
export interface PgBossInboxOptions {
  /** A started pg-boss 10 instance (`await new PgBoss(url).start()`); the inbox never stops it. */
  boss: PgBossLike;
  /** Queue name (default `kirimbayar-inbox`); dead letters go to `<name>-dead`. */
  name?: string;
  /** pg-boss's schema (default `pgboss`), for the dead-letter listing and the counts. */
  schema?: string;
  /**
   * How long a worker may hold an event before pg-boss gives it to another (default 900 s): a worker killed
   * mid-event hands it back after this. Keep it above your slowest handler.
   */
  expireInSeconds?: number;
  /** How often an idle worker asks for new events (default 500 ms). */
  pollingIntervalMs?: number;
  /** Days a dead letter is kept (default 365). */
  deadLetterRetentionDays?: number;
  /**
   * Delay before the first retry, in whole seconds (default 1). pg-boss then doubles it (with jitter) on each retry;
   * it caps the growth itself, so the worker's `retry.maxDelayMs` does not apply on this engine.
   */
  retryDelaySeconds?: number;
}

interface JobData {
  message: InboxMessage;
  replayedAt?: number;
}

interface DeadData extends JobData {
  attempts: InboxAttempt[];
  deadAt: number;
}

const QUEUE_NAME = /^[A-Za-z0-9_.\-/]+$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * An inbox on pg-boss 10 (PostgreSQL: the shop's own database). A job's id is derived from the event's idempotency
 * key, so a redelivery adds no second job while the first exists (queued, running, or kept after it finished). A
 * failed try goes back through pg-boss's retry (its backoff); each try's error is kept in the job's output. Dead
 * letters are jobs of `<name>-dead` that no worker takes.
 *
 * @example
 * const boss = await new PgBoss(process.env.DATABASE_URL!).start();
 * const inbox = await createPgBossInbox({ boss });
 * const qris = createWebhookReceiver({ source: "qris", verify, inbox });
 */
export async function createPgBossInbox(options: PgBossInboxOptions): Promise<PgBossInbox> {
  const { boss } = options;
  const name = options.name ?? "kirimbayar-inbox";
  const deadName = `${name}-dead`;
  const schema = options.schema ?? "pgboss";
  if (!QUEUE_NAME.test(name)) throw new TypeError("name may hold letters, digits, -, _, . and / only");
  if (!IDENTIFIER.test(schema)) throw new TypeError("schema must be a plain identifier");
  const expireInSeconds = options.expireInSeconds ?? 900;
  const pollingIntervalMs = options.pollingIntervalMs ?? 500;
  const retentionDays = options.deadLetterRetentionDays ?? 365;
  const sendOptions = {
    retryLimit: 1_000_000, // the worker decides when an event is dead (its retry period), not a count
    retryDelay: Math.max(1, Math.round(options.retryDelaySeconds ?? 1)),
    retryBackoff: true,
    expireInSeconds,
    retentionDays: 30,
  };
  for (const queue of [name, deadName]) {
    if ((await boss.getQueue(queue)) === null) await boss.createQueue(queue);
  }
  const sql = (text: string, values: unknown[]) => boss.getDb().executeSql(text, values);
  const jobs = `"${schema}".job`;

  function deadLetterOf(row: { id: string; data: unknown }): DeadLetter {
    const data = row.data as DeadData;
    return { id: row.id, message: data.message, attempts: data.attempts ?? [], deadAt: data.deadAt };
  }

  const inbox: PgBossInbox = {
    engine: "pg-boss",
    name,

    async enqueue(message) {
      const id = await boss.send(name, { message } satisfies JobData, { ...sendOptions, id: uuidOfKey(message.key) });
      return id === null ? "duplicate" : "queued";
    },

    async enqueueIn(db, message) {
      const id = await boss.send(name, { message } satisfies JobData, {
        ...sendOptions,
        id: uuidOfKey(message.key),
        db,
      });
      return id === null ? "duplicate" : "queued";
    },

    async consume(decide, consumeOptions: ConsumeOptions = {}): Promise<InboxConsumer> {
      const batchSize = consumeOptions.concurrency ?? 10;
      let stopping = false;
      let wake: (() => void) | undefined;
      const loop = (async () => {
        while (!stopping) {
          let batch: PgBossJob[];
          try {
            batch = await boss.fetch(name, { batchSize, includeMetadata: true });
          } catch {
            batch = []; // the database is away: pg-boss reports it on its `error` event; try again after a pause
          }
          if (batch.length === 0) {
            await new Promise<void>((resolve) => {
              wake = resolve;
              setTimeout(resolve, pollingIntervalMs);
            });
            continue;
          }
          await runBatch(batch, decide);
        }
      })();
      return {
        async stop(stopOptions = {}) {
          stopping = true;
          wake?.();
          // Events still running after the timeout stay active in pg-boss and come back when they expire.
          await Promise.race([loop, new Promise((resolve) => setTimeout(resolve, stopOptions.timeoutMs ?? 30_000))]);
        },
      };
    },

    async listDeadLetters(listOptions = {}) {
      const { rows } = await sql(
        `SELECT id, data FROM ${jobs} WHERE name = $1 AND state = 'created' ORDER BY created_on DESC LIMIT $2`,
        [deadName, listOptions.limit ?? 100],
      );
      return rows.map((row) => deadLetterOf(row as { id: string; data: unknown }));
    },

    async getDeadLetter(id) {
      const job = await boss.getJobById(deadName, id).catch(() => null);
      return job === null ? undefined : deadLetterOf(job);
    },

    async replayDeadLetter(id) {
      const job = await boss.getJobById(deadName, id).catch(() => null);
      if (job === null) return false;
      const { message } = job.data as DeadData;
      // The finished original still holds the id in the queue: make room for the replay.
      await boss.deleteJob(name, id);
      await boss.send(name, { message, replayedAt: Date.now() } satisfies JobData, { ...sendOptions, id });
      await boss.deleteJob(deadName, id);
      return true;
    },

    async replayAllDeadLetters() {
      let replayed = 0;
      for (;;) {
        const page = await inbox.listDeadLetters({ limit: 500 });
        if (page.length === 0) return replayed;
        for (const letter of page) if (await inbox.replayDeadLetter(letter.id)) replayed += 1;
      }
    },

    async stats(): Promise<InboxStats> {
      const { rows } = await sql(
        `SELECT
           count(*) FILTER (WHERE name = $1 AND state IN ('created', 'retry')) AS waiting,
           count(*) FILTER (WHERE name = $1 AND state = 'active') AS active,
           count(*) FILTER (WHERE name = $2 AND state = 'created') AS dead,
           min(created_on) FILTER (WHERE name = $1 AND state IN ('created', 'retry')) AS oldest
         FROM ${jobs} WHERE name IN ($1, $2)`,
        [name, deadName],
      );
      const row = rows[0] ?? {};
      const oldest = row.oldest === null || row.oldest === undefined ? undefined : new Date(row.oldest as string);
      return {
        waiting: Number(row.waiting ?? 0),
        active: Number(row.active ?? 0),
        deadLetters: Number(row.dead ?? 0),
        oldestWaitingAgeMs: oldest === undefined ? undefined : Math.max(0, Date.now() - oldest.getTime()),
      };
    },

    async close() {},
  };
  return inbox;

  // Runs a fetched batch at once, then records the outcomes: one statement completes every finished event.
  async function runBatch(batch: PgBossJob[], decide: (delivery: InboxDelivery) => Promise<InboxVerdict>) {
    const done: string[] = [];
    await Promise.all(
      batch.map(async (job) => {
        const data = job.data as JobData;
        const attempt = (job.retryCount ?? 0) + 1;
        let verdict: InboxVerdict;
        try {
          verdict = await decide({
            message: data.message,
            attempt,
            periodStartedAt: data.replayedAt ?? data.message.receivedAt,
          });
        } catch (error) {
          verdict = { kind: "retry", error: String(error), delayMs: 0 };
        }
        if (verdict.kind === "done") {
          done.push(job.id);
          return;
        }
        const attempts = [...previousAttempts(job.output), { at: Date.now(), attempt, error: verdict.error }];
        try {
          if (verdict.kind === "retry") {
            await boss.fail(name, job.id, { attempts });
          } else {
            const dead: DeadData = { message: data.message, attempts, deadAt: Date.now() };
            // Written before the original is finished: a crash in between leaves both, and a replay of an event
            // applied meanwhile is a duplicate for the idempotency store.
            await boss.send(deadName, dead, { id: job.id, retentionDays, retryLimit: 0 });
            await boss.complete(name, job.id, { dead: true, attempts });
          }
        } catch {
          // The job stays active and comes back when it expires.
        }
      }),
    );
    if (done.length > 0) await boss.complete(name, done).catch(() => {});
  }
}

function previousAttempts(output: unknown): InboxAttempt[] {
  const attempts = (output as { attempts?: unknown } | null | undefined)?.attempts;
  return Array.isArray(attempts) ? (attempts as InboxAttempt[]) : [];
}
