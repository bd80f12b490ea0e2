import { createHash } from "node:crypto";
import { type BatchingOptions, KeyedBatcher } from "@kirimbayar/core";
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
  insert(jobs: object[], options?: object): Promise<unknown>;
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
   * Send jobs as a named prepared statement, parsed and planned once per connection (default `true`). pg-boss sends
   * its long INSERT as text, which PostgreSQL parses and plans on every enqueue: most of an inbox-mode delivery's
   * cost. Turn it off for a pg-boss whose `db` is not `pg`'s pool, or behind a transaction-mode pgbouncer.
   */
  preparedStatements?: boolean;
  /**
   * Events taken per fetch (default: the larger of the worker's concurrency and 100; at most `concurrency` run at
   * once). pg-boss 10 reads and sorts every waiting job of the queue on each fetch, so with a deep backlog the
   * number of fetches, not the handlers, decides the throughput. Fetched events wait in the worker, their
   * `expireInSeconds` running: keep `fetchBatchSize / concurrency` times your slowest handler below it.
   */
  fetchBatchSize?: number;
  /**
   * Concurrent deliveries are written as one multi-row insert (pg-boss's `insert`; default on): under load one
   * statement serves many events, the way the Postgres idempotency store batches its claims. A lone delivery goes
   * at once. The answer is then "queued" for a duplicate too (its job is not added again), as on BullMQ. `false`
   * sends each event on its own (`send`), answering "duplicate" for an event already queued.
   */
  enqueueBatching?: BatchingOptions | false;
}

interface JobData {
  message: InboxMessage;
  replayedAt?: number;
  /** Every failed try so far: kept in the job's data, which pg-boss carries over when a job expires. */
  attempts?: InboxAttempt[];
}

interface DeadData extends JobData {
  attempts: InboxAttempt[];
  deadAt: number;
}

const DAY_MS = 24 * 60 * 60_000;
const NO_ROWS: ReadonlyMap<string, never> = new Map<string, never>();
const QUEUE_NAME = /^[A-Za-z0-9_.\-/]+$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * An inbox on pg-boss 10 (PostgreSQL: the shop's own database). A job's id is derived from the event's idempotency
 * key, so a redelivery adds no second job while the first exists (queued, running, or kept after it finished). A
 * failed try goes back through pg-boss's retry, due after the delay the worker's retry policy chose; each try's error
 * is kept in the job's data. Dead letters are jobs of `<name>-dead` that no worker takes.
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
    // After a failed try the worker's retry policy sets the delay (runBatch). pg-boss's own delay applies only to an
    // event whose worker died (its job expired, after expireInSeconds already): 1 s, flat. Its backoff would double
    // on every try before, up to 2^16 s: after a few quick retries, a day's wait for one killed worker.
    retryDelay: 1,
    retryBackoff: false,
    expireInSeconds,
    retentionDays: 30,
  };
  for (const queue of [name, deadName]) {
    if ((await boss.getQueue(queue)) === null) await boss.createQueue(queue);
  }
  const sql = (text: string, values: unknown[]) => boss.getDb().executeSql(text, values);
  // pg's Pool.query takes a query config in place of the text; named, it is prepared once per connection.
  const statementNames = new Map<string, string>();
  const preparedDb: PgBossDb = {
    executeSql(text, values) {
      let statement = statementNames.get(text);
      if (statement === undefined) {
        statement = `kirimbayar_inbox_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
        statementNames.set(text, statement);
      }
      return boss.getDb().executeSql({ name: statement, text } as unknown as string, values);
    },
  };
  const prepared = options.preparedStatements === false ? {} : { db: preparedDb };
  const jobs = `"${schema}".job`;
  const jobOf = (message: InboxMessage) => ({
    id: uuidOfKey(message.key),
    name,
    data: { message } satisfies JobData,
    retryLimit: sendOptions.retryLimit,
    retryDelay: sendOptions.retryDelay,
    retryBackoff: sendOptions.retryBackoff,
    expireInSeconds,
    keepUntil: new Date(Date.now() + sendOptions.retentionDays * DAY_MS).toISOString(),
  });
  const inserts =
    options.enqueueBatching === false
      ? undefined
      : new KeyedBatcher<{ key: string; job: object }, never>(async (calls) => {
          await boss.insert(
            calls.map((call) => call.job),
            prepared,
          );
          return NO_ROWS;
        }, options.enqueueBatching);

  function deadLetterOf(row: { id: string; data: unknown }): DeadLetter {
    const data = row.data as DeadData;
    return { id: row.id, message: data.message, attempts: data.attempts ?? [], deadAt: data.deadAt };
  }

  const inbox: PgBossInbox = {
    engine: "pg-boss",
    name,

    async enqueue(message) {
      if (inserts !== undefined) {
        await inserts.submit({ key: message.key, job: jobOf(message) });
        return "queued";
      }
      const id = await boss.send(name, { message } satisfies JobData, {
        ...sendOptions,
        ...prepared,
        id: uuidOfKey(message.key),
      });
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
      const concurrency = consumeOptions.concurrency ?? 10;
      const batchSize = Math.max(concurrency, options.fetchBatchSize ?? 100);
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
          await runBatch(batch, decide, concurrency);
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
      await boss.send(name, { message, replayedAt: Date.now() } satisfies JobData, { ...sendOptions, ...prepared, id });
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

  // Runs a fetched batch, at most `concurrency` events at once, then records the outcomes: one statement completes
  // every finished event.
  async function runBatch(
    batch: PgBossJob[],
    decide: (delivery: InboxDelivery) => Promise<InboxVerdict>,
    concurrency: number,
  ) {
    const done: string[] = [];
    let next = 0;
    const runOne = async (job: PgBossJob) => {
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
      const now = Date.now();
      const attempts = [...previousAttempts(job, attempt, now), { at: now, attempt, error: verdict.error }];
      try {
        if (verdict.kind === "retry") {
          // Into the job's data first: pg-boss replaces the output of a job that expires (a worker killed later).
          await sql(`UPDATE ${jobs} SET data = jsonb_set(data, '{attempts}', $3::jsonb) WHERE name = $1 AND id = $2`, [
            name,
            job.id,
            JSON.stringify(attempts),
          ]);
          await boss.fail(name, job.id, { attempts });
          await sql(
            `UPDATE ${jobs} SET start_after = now() + $3 * interval '1 millisecond' WHERE name = $1 AND id = $2 AND state = 'retry'`,
            [name, job.id, Math.max(0, Math.round(verdict.delayMs))],
          );
        } else {
          const dead: DeadData = { message: data.message, attempts, deadAt: now };
          // Written before the original is finished: a crash in between leaves both, and a replay of an event
          // applied meanwhile is a duplicate for the idempotency store.
          await boss.send(deadName, dead, { ...prepared, id: job.id, retentionDays, retryLimit: 0 });
          await boss.complete(name, job.id, { dead: true, attempts });
        }
      } catch {
        // The job stays active and comes back when it expires.
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(concurrency, batch.length) }, async () => {
        while (next < batch.length) await runOne(batch[next++] as PgBossJob);
      }),
    );
    if (done.length > 0) await boss.complete(name, done).catch(() => {});
  }
}

/** A try that ended without a verdict: its job expired (worker killed or stopped, or a handler too slow). */
const UNFINISHED = "no verdict: the worker stopped or crashed during this try, or it ran past expireInSeconds";

// The tries recorded before this one (the job's data; its output for a job failed by an older version), with an
// entry for each try in between that never reported.
function previousAttempts(job: PgBossJob, attempt: number, now: number): InboxAttempt[] {
  const kept = (job.data as JobData).attempts ?? (job.output as { attempts?: unknown } | null | undefined)?.attempts;
  const attempts = Array.isArray(kept) ? [...(kept as InboxAttempt[])] : [];
  for (let missing = (attempts.at(-1)?.attempt ?? 0) + 1; missing < attempt; missing++) {
    attempts.push({ at: now, attempt: missing, error: UNFINISHED });
  }
  return attempts;
}
