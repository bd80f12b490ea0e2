// A worker's loop on a pg-boss inbox: fetch due events, run them (at most `concurrency` at once) under a hold the
// heartbeat renews, and settle each by its verdict, retrying every settle until the database takes it. An event
// is never left "active" by a failed call: while the database is away the worker keeps the events and their
// verdicts, and settles them as soon as it answers again (a handler whose transaction committed is completed; a
// failed or unknown one goes back to the queue, and the idempotency store keeps its retry from applying twice).
import type { WebhookLogger } from "@kirimbayar/core/webhooks";
import type { ConsumeOptions, InboxConsumer, InboxDelivery, InboxVerdict } from "../../types.js";
import { previousAttempts } from "./attempts.js";
import { backoffDelay, DATABASE_BACKOFF, pause, untilAnswered, withTimeLimit } from "./backoff.js";
import { type HeldJob, HoldKeeper } from "./hold.js";
import { analyzeIfStale, ensureActiveIndex, partitionOf } from "./partition.js";
import type { InboxStatements } from "./statements.js";
import type { DeadData, JobData, PgBossJob, PgBossLike } from "./types.js";

/** What a consumer needs of its inbox. */
export interface ConsumerContext {
  readonly boss: PgBossLike;
  readonly name: string;
  readonly deadName: string;
  readonly schema: string;
  readonly statements: InboxStatements;
  readonly sql: (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>;
  /** pg-boss `send` options of a dead letter (its id is added). */
  readonly deadLetterOptions: object;
  readonly heartbeatIntervalMs: number;
  readonly reapIntervalMs: number;
  readonly pollingIntervalMs: number;
  readonly fetchBatchSize: number | undefined;
  readonly logger: WebhookLogger;
}

/** A fetched job: pg-boss's columns, with the retry count its fetch gave it. */
interface FetchedJob extends PgBossJob {
  retryCount: number;
  /** The latest `start_after` of its batch (PostgreSQL's text, read back as is). */
  cursorAt: string;
}

/** A fetch with no answer in this long is given up (its events, if it took any, come back when their hold ends). */
const FETCH_TIME_LIMIT_MS = 30_000;
/** At most one warning per worker in this long: an outage fails every call of every held event. */
const WARNING_INTERVAL_MS = 5_000;
/**
 * A worker fetches from where its last full batch ended, and from the start at least this often, or after a batch
 * that was not full: an event due before the cursor (an enqueue whose transaction committed late, a row another
 * worker locked and let go) waits at most this long.
 */
const REWIND_INTERVAL_MS = 5_000;
/** How often a worker checks its queue's partition: statistics, and the reaper's index. */
const UPKEEP_INTERVAL_MS = 30_000;

/** Starts a consumer; see {@link InboxQueue.consume}. */
export async function consumePgBossInbox(
  context: ConsumerContext,
  decide: (delivery: InboxDelivery) => Promise<InboxVerdict>,
  options: ConsumeOptions = {},
): Promise<InboxConsumer> {
  const { name, statements, sql } = context;
  const concurrency = options.concurrency ?? 10;
  const batchSize = Math.max(concurrency, context.fetchBatchSize ?? 100);
  let stopping = false;
  const wake = new AbortController(); // stop(): ends the idle and back-off pauses of the loop
  const abandon = new AbortController(); // stop()'s time limit: settles left to the reaper

  let lastWarning = Number.NEGATIVE_INFINITY;
  const warn = (error: unknown, what: string, failures = 1) => {
    const now = Date.now();
    if (now - lastWarning < WARNING_INTERVAL_MS) return;
    lastWarning = now;
    context.logger.warn?.("A call of the pg-boss inbox worker to the database failed; retrying", {
      queue: name,
      call: what,
      failures,
      error: error instanceof Error ? error.message : String(error),
    });
  };

  const holds = new HoldKeeper({
    name,
    statements,
    sql,
    heartbeatIntervalMs: context.heartbeatIntervalMs,
    reapIntervalMs: context.reapIntervalMs,
    onFailure: warn,
  });
  holds.start();
  const upkeep = startUpkeep(context, warn);

  const settle = (what: string, call: () => Promise<unknown>) =>
    untilAnswered(call, { what, signal: abandon.signal, onFailure: warn });
  const completions = groupCommit<HeldJob>(async (jobs) => {
    await settle(`complete ${jobs.length} events`, () =>
      sql(statements.complete, [name, jobs.map((job) => job.id), jobs.map((job) => job.retryCount), null]),
    );
    for (const job of jobs) holds.release(job.id);
  });

  const loop = (async () => {
    let fetchFailures = 0;
    let cursor: string | undefined;
    let rewoundAt = 0;
    while (!stopping) {
      let batch: FetchedJob[];
      try {
        if (Date.now() - rewoundAt >= REWIND_INTERVAL_MS) cursor = undefined;
        if (cursor === undefined) rewoundAt = Date.now();
        const fetch = sql(statements.fetch, [name, batchSize, cursor ?? null]);
        batch = (await withTimeLimit(fetch, FETCH_TIME_LIMIT_MS, "fetch")).rows as FetchedJob[];
        cursor = batch.length === batchSize ? batch[0]?.cursorAt : undefined;
        fetchFailures = 0;
      } catch (error) {
        fetchFailures += 1;
        warn(error, "fetch", fetchFailures);
        await pause(backoffDelay(DATABASE_BACKOFF, fetchFailures), wake.signal);
        continue;
      }
      if (batch.length === 0) {
        await pause(context.pollingIntervalMs, wake.signal);
        continue;
      }
      await runBatch(batch);
    }
  })();

  return {
    async stop(stopOptions = {}) {
      stopping = true;
      wake.abort();
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        loop,
        new Promise((resolve) => (timer = setTimeout(resolve, stopOptions.timeoutMs ?? 30_000))),
      ]);
      clearTimeout(timer);
      // Handlers still running, and settles the database has not taken yet, are left: their hold is no longer
      // renewed, so their events come back to the queue once it runs out.
      abandon.abort();
      holds.stop();
      upkeep.stop();
    },
  };

  // Runs a fetched batch, at most `concurrency` events at once. A retry or a dead letter is settled as soon as its
  // verdict is known; finished events are completed together (group commit: those finishing while a completion is
  // on its way go in the next one), so one slow handler holds back no other event's completion.
  async function runBatch(batch: FetchedJob[]) {
    for (const job of batch) holds.hold({ id: job.id, retryCount: job.retryCount });
    let next = 0;
    const runOne = async (job: FetchedJob) => {
      const verdict = await verdictOf(job);
      if (verdict.kind === "done") completions.add({ id: job.id, retryCount: job.retryCount });
      else {
        await settleFailure(job, verdict);
        holds.release(job.id);
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(concurrency, batch.length) }, async () => {
        while (next < batch.length) await runOne(batch[next++] as FetchedJob);
      }),
    );
    await completions.idle();
  }

  async function verdictOf(job: FetchedJob): Promise<InboxVerdict> {
    const data = job.data as JobData;
    try {
      return await decide({
        message: data.message,
        attempt: job.retryCount + 1,
        periodStartedAt: data.replayedAt ?? data.message.receivedAt,
      });
    } catch (error) {
      return { kind: "retry", error: String(error), delayMs: 0 };
    }
  }

  async function settleFailure(job: FetchedJob, verdict: Exclude<InboxVerdict, { kind: "done" }>) {
    const now = Date.now();
    const attempt = job.retryCount + 1;
    const attempts = [...previousAttempts(job, attempt, now), { at: now, attempt, error: verdict.error }];
    if (verdict.kind === "retry") {
      // One statement: the try's error into the job's data (pg-boss replaces the output of a job that expires),
      // back to the queue, due after the worker's delay.
      const delayMs = Math.max(0, Math.round(verdict.delayMs));
      await settle("retry an event", () =>
        sql(statements.retry, [name, job.id, job.retryCount, JSON.stringify(attempts), delayMs]),
      );
      return;
    }
    const data = job.data as JobData;
    const dead: DeadData = { message: data.message, attempts, deadAt: now };
    // Written before the original is finished: a crash in between leaves both, and a replay of an event applied
    // meanwhile is a duplicate for the idempotency store. A second send of the same dead letter adds nothing.
    const written = await settle("write a dead letter", () =>
      context.boss.send(context.deadName, dead, { ...context.deadLetterOptions, id: job.id }),
    );
    if (!written) return; // stopped: the event comes back and is judged again
    await settle("complete a dead event", () =>
      sql(statements.complete, [name, [job.id], [job.retryCount], JSON.stringify({ dead: true, attempts })]),
    );
  }
}

/**
 * The partition's upkeep (partition.ts) at the start and then every {@link UPKEEP_INTERVAL_MS}: the reaper's index,
 * and fresh statistics when a backlog grew faster than autovacuum analyzes.
 */
function startUpkeep(context: ConsumerContext, warn: (error: unknown, what: string) => void): { stop(): void } {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let indexed = false;
  const tick = async () => {
    try {
      const partition = await partitionOf(context.sql, context.statements, context.name);
      if (partition !== undefined) {
        if (!indexed) await ensureActiveIndex(context.sql, context.schema, partition);
        indexed = true;
        await analyzeIfStale(context.sql, context.schema, partition);
      }
    } catch (error) {
      warn(error, "upkeep of the queue's partition");
    }
    if (stopped) return;
    timer = setTimeout(() => void tick(), UPKEEP_INTERVAL_MS);
    timer.unref?.();
  };
  void tick();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}

/**
 * Calls `flush` with the items added since its last call, one call at a time: the first item waits for the end of
 * the current turn of the event loop (events finishing together share a statement), later ones for the call on its
 * way.
 */
export function groupCommit<T>(flush: (items: T[]) => Promise<void>): { add(item: T): void; idle(): Promise<void> } {
  let pending: T[] = [];
  let running: Promise<void> | undefined;
  const drain = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    while (pending.length > 0) {
      const items = pending;
      pending = [];
      await flush(items);
    }
    running = undefined;
  };
  return {
    add(item) {
      pending.push(item);
      running ??= drain();
    },
    idle: () => running ?? Promise.resolve(),
  };
}
