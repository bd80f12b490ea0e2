import type { BatchingOptions } from "@kirimbayar/core";
import type { SqlBinding } from "@kirimbayar/core/postgres";
import type { AnyLogger, InboxMessage } from "@kirimbayar/core/webhooks";
import type { InboxAttempt, InboxEnqueueResult, InboxQueue } from "../../types.js";

/** The slice of a pg-boss 10 instance the inbox uses (pass your started `PgBoss`). */
export interface PgBossLike {
  send(name: string, data: object, options: object): Promise<string | null>;
  insert(jobs: object[], options?: object): Promise<unknown>;
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

/**
 * The pg-boss inbox: an {@link InboxQueue} that can also enqueue inside your own database transaction. `Tx` is the
 * transaction object of the database library whose binding the inbox was given (`binding` option), which
 * `enqueueIn` then takes as it is.
 */
export interface PgBossInbox<Tx = never> extends InboxQueue {
  /**
   * Writes `message` with your transaction's connection: the event is queued if and only if your transaction
   * commits (e.g. an event your code records together with an order it writes). `db` is pg-boss's
   * `{ executeSql(text, values) }`, or, with the inbox's `binding`, your library's transaction object itself (Prisma's
   * `tx`, TypeORM's `EntityManager`, a transactional handler's `ctx.transaction`).
   *
   * @example
   * await prisma.$transaction(async (tx) => {
   *   await tx.order.update({ where: { id }, data: { status: "paid" } });
   *   await inbox.enqueueIn(tx, message); // createPgBossInbox({ boss, binding: prismaBinding(prisma) })
   * });
   */
  enqueueIn(db: PgBossDb | Tx, message: InboxMessage): Promise<InboxEnqueueResult>;
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
export interface PgBossInboxOptions<Tx = never> {
  /** A started pg-boss 10 instance (`await new PgBoss(url).start()`); the inbox never stops it. */
  boss: PgBossLike;
  /**
   * The binding of your database library (`prismaBinding(prisma)`, `typeormBinding(dataSource)`, ... from core), the
   * same the idempotency store uses: `enqueueIn` then takes the library's transaction object itself.
   */
  binding?: SqlBinding<Tx>;
  /** Queue name (default `kirimbayar-inbox`); dead letters go to `<name>-dead`. */
  name?: string;
  /** pg-boss's schema (default `pgboss`), for the dead-letter listing and the counts. */
  schema?: string;
  /**
   * How long a worker holds an event without a heartbeat before another worker may take it (default 30 s, whole
   * seconds). A worker renews the hold of every event it holds each `heartbeatIntervalMs`, so a slow handler keeps
   * its event however long it runs; a killed worker's events are taken back by the other workers about this long
   * after its last heartbeat. Events queued with an older setting keep theirs (pg-boss stores it per event).
   */
  expireInSeconds?: number;
  /**
   * How often a worker renews the hold of the events it holds (default a sixth of `expireInSeconds`: 5 s). At most
   * half of `expireInSeconds`: the hold then outlives a few missed heartbeats (a database blip, a long pause).
   */
  heartbeatIntervalMs?: number;
  /**
   * How often each worker hands back the events whose hold ran out (default 5 s): those of a killed worker.
   * pg-boss does it only on its maintenance round (every few minutes by default).
   */
  reapIntervalMs?: number;
  /** How often an idle worker asks for new events (default 500 ms). */
  pollingIntervalMs?: number;
  /** Days a dead letter is kept (default 365). */
  deadLetterRetentionDays?: number;
  /**
   * Send jobs as a named prepared statement, parsed and planned once per connection (default `true`). pg-boss sends
   * its long INSERT as text, which PostgreSQL parses and plans on every enqueue: most of an inbox-mode delivery's
   * cost. Behind a connection pooler in transaction mode (PgBouncer, Supavisor), which keeps no prepared statement
   * between transactions, nothing needs setting: the first insert the pooler refuses (nothing ran) switches pg-boss's
   * pool to unnamed statements and is sent again, with one warning to `logger`. `false`: never named (for a pg-boss
   * whose `db` is not `pg`'s pool and takes no query config).
   */
  preparedStatements?: boolean;
  /**
   * Events taken per fetch (default: the larger of the worker's concurrency and 100; at most `concurrency` run at
   * once). Fetched events wait in the worker under its heartbeat.
   */
  fetchBatchSize?: number;
  /**
   * Concurrent deliveries are written as one multi-row insert (pg-boss's `insert`; default on): under load one
   * statement serves many events, the way the Postgres idempotency store batches its claims. A lone delivery goes
   * at once. The answer is then "queued" for a duplicate too (its job is not added again), as on BullMQ. `false`
   * sends each event on its own (`send`), answering "duplicate" for an event already queued.
   */
  enqueueBatching?: BatchingOptions | false;
  /**
   * Told when a worker's call to the database fails and is retried (at most one warning every 5 s per worker), and
   * once when a transaction-mode pooler made the inbox switch to unnamed statements; default `console`: console-style
   * or pino-style.
   */
  logger?: AnyLogger;
}

/** What the inbox keeps in a job's data. */
export interface JobData {
  message: InboxMessage;
  replayedAt?: number;
  /** Every failed try so far: kept in the job's data, which pg-boss carries over when a job expires. */
  attempts?: InboxAttempt[];
}

/** A dead letter's data (a job of `<name>-dead`). */
export interface DeadData extends JobData {
  attempts: InboxAttempt[];
  deadAt: number;
}
