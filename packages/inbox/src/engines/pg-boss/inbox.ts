import { createHash } from "node:crypto";
import { inboxStage, KeyedBatcher } from "@kirimbayar/core";
import { sendNamedUnlessRefused } from "@kirimbayar/core/postgres";
import { type InboxMessage, webhookLoggerOf } from "@kirimbayar/core/webhooks";
import type { ConsumeOptions, DeadLetter, InboxConsumer, InboxStats } from "../../types.js";
import { uuidOfKey } from "../job-ids.js";
import { consumePgBossInbox } from "./consumer.js";
import { inboxStatements } from "./statements.js";
import type { DeadData, JobData, PgBossDb, PgBossInbox, PgBossInboxOptions } from "./types.js";

const DAY_MS = 24 * 60 * 60_000;
const NO_ROWS: ReadonlyMap<string, never> = new Map<string, never>();
const QUEUE_NAME = /^[A-Za-z0-9_.\-/]+$/;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
/**
 * The default hold: long enough to ride out a database failover or a long pause of the worker's process without
 * handing a live worker's events to another (a heartbeat every 5 s, six of them missed), short enough that a killed
 * worker's events come back within a minute (30 s + the 5 s reap interval + the 1 s retry delay). BullMQ's lock
 * lasts as long by default.
 */
const DEFAULT_EXPIRE_IN_SECONDS = 30;
const DEFAULT_REAP_INTERVAL_MS = 5_000;

/**
 * An inbox on pg-boss 10 (PostgreSQL: the shop's own database). A job's id is derived from the event's idempotency
 * key, so a redelivery adds no second job while the first exists (queued, running, or kept after it finished). A
 * failed try goes back to the queue, due after the delay the worker's retry policy chose; each try's error is kept
 * in the job's data. Dead letters are jobs of `<name>-dead` that no worker takes. A worker renews its hold on the
 * events it runs (heartbeat) and hands back those of a killed worker (reaper), and retries every call that settles
 * an event until the database takes it.
 *
 * @example
 * const boss = await new PgBoss(process.env.DATABASE_URL!).start();
 * const inbox = await createPgBossInbox({ boss });
 * const qris = createWebhookReceiver({ source: "qris", verify, inbox });
 */
export async function createPgBossInbox<Tx = never>(options: PgBossInboxOptions<Tx>): Promise<PgBossInbox<Tx>> {
  const { boss } = options;
  const name = options.name ?? "kirimbayar-inbox";
  const deadName = `${name}-dead`;
  const schema = options.schema ?? "pgboss";
  if (!QUEUE_NAME.test(name)) throw new TypeError("name may hold letters, digits, -, _, . and / only");
  if (!IDENTIFIER.test(schema)) throw new TypeError("schema must be a plain identifier");
  const expireInSeconds = options.expireInSeconds ?? DEFAULT_EXPIRE_IN_SECONDS;
  if (!(Number.isInteger(expireInSeconds) && expireInSeconds >= 1))
    throw new TypeError("expireInSeconds must be a whole number of seconds, at least 1");
  const heartbeatIntervalMs = options.heartbeatIntervalMs ?? (expireInSeconds * 1_000) / 6;
  if (
    !(Number.isFinite(heartbeatIntervalMs) && heartbeatIntervalMs > 0 && heartbeatIntervalMs <= expireInSeconds * 500)
  )
    throw new TypeError("heartbeatIntervalMs must be positive and at most half of expireInSeconds");
  const reapIntervalMs = options.reapIntervalMs ?? DEFAULT_REAP_INTERVAL_MS;
  if (!(Number.isFinite(reapIntervalMs) && reapIntervalMs > 0))
    throw new TypeError("reapIntervalMs must be a positive number of ms");
  const pollingIntervalMs = options.pollingIntervalMs ?? 500;
  const retentionDays = options.deadLetterRetentionDays ?? 365;
  const logger = webhookLoggerOf(options.logger ?? console);
  const sendOptions = {
    retryLimit: 1_000_000, // the worker decides when an event is dead (its retry period), not a count
    // After a failed try the worker's retry policy sets the delay. pg-boss's own delay applies only to an event
    // whose worker died (its hold ran out): 1 s, flat. Its backoff would double on every try before, up to 2^16 s:
    // after a few quick retries, a day's wait for one killed worker.
    retryDelay: 1,
    retryBackoff: false,
    expireInSeconds,
    retentionDays: 30,
  };
  for (const queue of [name, deadName]) {
    if ((await boss.getQueue(queue)) === null) await boss.createQueue(queue);
  }
  const sql = (text: string, values: unknown[]) => boss.getDb().executeSql(text, values);
  // pg's Pool.query takes a query config in place of the text; named, it is prepared once per connection. Named by
  // the text's hash, so that a name never stands for another text (another schema, another version of the inbox).
  const statementNames = new Map<string, string>();
  const statementModeReport = { component: "pg-boss inbox", logger };
  const preparedDb: PgBossDb = {
    executeSql(text, values) {
      let statement = statementNames.get(text);
      if (statement === undefined) {
        statement = `kirimbayar_inbox_${createHash("sha256").update(text).digest("hex").slice(0, 24)}`;
        statementNames.set(text, statement);
      }
      const name = statement;
      const db = boss.getDb();
      // Behind a transaction-mode pooler (PgBouncer, Supavisor) the first refused insert switches pg-boss's pool to
      // unnamed statements and is sent again (nothing ran), as the idempotency store and journal do on theirs.
      return sendNamedUnlessRefused(
        db,
        (named) => (named ? db.executeSql({ name, text } as unknown as string, values) : db.executeSql(text, values)),
        statementModeReport,
      );
    },
  };
  const prepared = options.preparedStatements === false ? {} : { db: preparedDb };
  const jobs = `"${schema}".job`;
  const statements = inboxStatements(schema);
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

  // pg-boss's `Db` on a library's transaction, through the binding: its insert becomes a statement of that transaction.
  const dbOf = (db: PgBossDb | Tx): PgBossDb => {
    if (typeof (db as Partial<PgBossDb> | null)?.executeSql === "function") return db as PgBossDb;
    const { binding } = options;
    if (binding === undefined) {
      throw new TypeError(
        "enqueueIn: pass pg-boss's { executeSql(text, values) }, or give createPgBossInbox the binding of your database library to pass its transaction object",
      );
    }
    return { executeSql: async (text, values) => ({ rows: [...(await binding.query(text, values, db as Tx)).rows] }) };
  };

  const inbox: PgBossInbox<Tx> = {
    engine: "pg-boss",
    name,
    inboxStage,

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
        db: dbOf(db),
      });
      return id === null ? "duplicate" : "queued";
    },

    consume(decide, consumeOptions: ConsumeOptions = {}): Promise<InboxConsumer> {
      return consumePgBossInbox(
        {
          boss,
          name,
          deadName,
          schema,
          statements,
          sql,
          deadLetterOptions: { ...prepared, retentionDays, retryLimit: 0 },
          heartbeatIntervalMs,
          reapIntervalMs,
          pollingIntervalMs,
          fetchBatchSize: options.fetchBatchSize,
          logger,
        },
        decide,
        consumeOptions,
      );
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
}
