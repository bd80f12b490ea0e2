import { inboxStage } from "@kirimbayar/core";
import type { InboxMessage } from "@kirimbayar/core/webhooks";
import { type ConnectionOptions, type Job, Queue, UnrecoverableError, Worker } from "bullmq";
import type { ConsumeOptions, DeadLetter, InboxAttempt, InboxConsumer, InboxQueue, InboxStats } from "../types.js";
import { checkClusterPrefix } from "./bullmq/cluster-prefix.js";
import { watchLostFetches } from "./bullmq/lost-fetches.js";
import {
  type BullMqReplicaAcknowledgement,
  type ReplicaAcknowledger,
  replicaAcknowledgementOf,
  replicaAcknowledger,
} from "./bullmq/replica-acknowledgement.js";
import { reconnectDelay, rescueRedisOf } from "./bullmq/rescue-redis.js";
import { bullMqIdOfKey } from "./job-ids.js";

/**
 * What BullMQ takes as `connection` (its `ConnectionOptions`), typed by its shape so that bullmq stays an optional
 * peer whose types this package never imports: ioredis options (a server's or a cluster's), or a client such as an
 * ioredis `Redis` or `Cluster`.
 */
export type BullMqConnection = BullMqConnectionOptions | BullMqRedisClient;

/** ioredis options as BullMQ takes them (`{ host, port, password, tls, … }`); every other ioredis option too. */
export interface BullMqConnectionOptions {
  host?: string;
  port?: number;
  url?: string;
  db?: number;
  username?: string;
  password?: string;
  tls?: unknown;
  maxRetriesPerRequest?: number | null;
  // biome-ignore lint/suspicious/noConfusingVoidType: ioredis's own signature, so that every strategy it takes fits
  retryStrategy?: (times: number) => number | void | null;
  [option: string]: unknown;
}

/** A Redis client BullMQ can use: an ioredis `Redis` or `Cluster` (it opens its workers' connections by `duplicate()`). */
export interface BullMqRedisClient {
  duplicate(...args: never[]): unknown;
}

/** Options of {@link createBullMqInbox}. */
export interface BullMqInboxOptions {
  /**
   * Redis connection for the queue and its workers: options (`{ host, port }`, or Sentinel's `{ sentinels, name }`)
   * or an ioredis instance (a Redis Cluster only as an instance: `new Cluster(nodes, { redisOptions:
   * { maxRetriesPerRequest: null } })`). Workers need `maxRetriesPerRequest: null` (BullMQ's rule); with options the
   * inbox sets it.
   */
  connection: BullMqConnection;
  /** Queue name (default `kirimbayar-inbox`; no `:`). */
  name?: string;
  /**
   * Redis key prefix (BullMQ's default `bull`). On a Redis Cluster give one with a hash tag, `"{kirimbayar}"`: every
   * key of the queue then lands on one slot, which BullMQ's scripts need; a cluster connection without one is
   * refused when the inbox is built.
   */
  prefix?: string;
  /** How long a finished event's job is kept, so a redelivery in that time adds none (default 24 h). */
  keepCompletedMs?: number;
  /**
   * How long a worker's lock on an event lasts without renewal (default 30 s, BullMQ's). A running worker renews it
   * every quarter to half of this, so a slow handler keeps its event (never run twice at once) as long as its
   * process answers; a worker killed mid-event hands it back once the lock has expired and the stalled check saw it.
   */
  lockDurationMs?: number;
  /**
   * How often workers look for events whose lock expired (default 5 s; BullMQ's 30 s). An event held by a worker
   * that died, or whose completion Redis refused, is back in the queue at most `lockDurationMs + 2 ×
   * stalledIntervalMs` after the last renewal: 40 s by default. One Lua script per interval for all workers.
   */
  stalledIntervalMs?: number;
  /**
   * Off by default. With replicas (Sentinel, Cluster, a managed Redis with replicas): answer a delivery 200 only once
   * its job is on the current master and this many replicas acknowledged it (`WAIT`, on a connection of the inbox's
   * own), so that a failover cannot take back an event the provider was told is safe. Fewer acknowledgements in
   * time: the delivery is answered 503 and the provider's retry queues it again (under the same id, so at most
   * once). While no replica answers, every delivery is refused.
   *
   * @example
   * await createBullMqInbox({ connection, replicaAcknowledgement: { replicas: 1, timeoutMs: 500 } });
   */
  replicaAcknowledgement?: BullMqReplicaAcknowledgement;
}

interface JobData {
  message: InboxMessage;
  replayedAt?: number;
}

/** Carries the worker's chosen delay to the backoff strategy. */
class RetryLater extends Error {
  constructor(
    message: string,
    readonly delayMs: number,
  ) {
    super(message);
    this.name = "RetryLater";
  }
}

const BACKOFF_TYPE = "kirimbayar-inbox";
const DEFAULT_LOCK_DURATION_MS = 30_000;
// BullMQ's 30 s would leave a killed worker's events stranded up to ~90 s: the lock's 30 s, then up to two checks
// to mark the event and move it, each up to two intervals apart when the check's owner was the one killed.
const DEFAULT_STALLED_INTERVAL_MS = 5_000;

/**
 * An inbox on BullMQ (Redis). The job id is the event's idempotency key (escaped), so a redelivery adds no second
 * job while the first exists (queued, running, or kept `keepCompletedMs` after it finished). A failed try is retried
 * after the worker's delay; each try's error goes to the job's log. Dead letters are the queue's failed jobs.
 *
 * @example
 * const inbox = await createBullMqInbox({ connection: { host: "127.0.0.1", port: 6379 } });
 * const qris = createWebhookReceiver({ source: "qris", verify, inbox });
 */
export async function createBullMqInbox(options: BullMqInboxOptions): Promise<InboxQueue> {
  const name = options.name ?? "kirimbayar-inbox";
  checkClusterPrefix(options.connection, options.prefix, name);
  const acknowledgement = replicaAcknowledgementOf(options.replicaAcknowledgement);
  const connection = withWorkerSettings(options.connection as ConnectionOptions);
  const base = { connection, ...(options.prefix === undefined ? {} : { prefix: options.prefix }) };
  const queue = new Queue<JobData>(name, base);
  // Connection trouble: enqueue fails (the receiver answers 503) and BullMQ reconnects; nothing to print here.
  queue.on("error", () => {});
  const keepCompletedMs = options.keepCompletedMs ?? 24 * 60 * 60_000;
  const workers = new Map<Worker<JobData>, () => void>();
  let acknowledger: ReplicaAcknowledger | undefined;
  if (acknowledgement !== undefined) {
    try {
      acknowledger = await replicaAcknowledger(options.connection, acknowledgement, queue.toKey("replica-ack"));
    } catch (error) {
      await queue.close();
      throw error;
    }
  }

  function deadLetterOf(job: Job<JobData>, logs: string[]): DeadLetter {
    return { id: String(job.id), message: job.data.message, attempts: attemptsOf(logs), deadAt: job.finishedOn ?? 0 };
  }

  async function logsOf(id: string): Promise<string[]> {
    return (await queue.getJobLogs(id, 0, -1, true)).logs;
  }

  const inbox: InboxQueue = {
    engine: "bullmq",
    name,
    inboxStage,

    async enqueue(message) {
      // With an existing id BullMQ keeps the first job; both answers are 200, so "queued" serves for both.
      const jobId = bullMqIdOfKey(message.key);
      await queue.add(
        "event",
        { message },
        {
          jobId,
          attempts: 1_000_000, // the worker decides when an event is dead (its retry period), not a count
          backoff: { type: BACKOFF_TYPE },
          removeOnComplete: { age: Math.ceil(keepCompletedMs / 1000) },
          removeOnFail: false,
        },
      );
      await acknowledger?.confirm(queue.toKey(jobId));
      return "queued";
    },

    async consume(decide, consumeOptions: ConsumeOptions = {}): Promise<InboxConsumer> {
      // The events this worker's processor took and has not seen settled (for the rescue of lost fetches).
      const held = new Set<string>();
      const worker = new Worker<JobData>(
        name,
        async (job) => {
          held.add(String(job.id));
          const attempt = job.attemptsMade + 1;
          const verdict = await decide({
            message: job.data.message,
            attempt,
            periodStartedAt: job.data.replayedAt ?? job.data.message.receivedAt,
          });
          if (verdict.kind === "done") return;
          const entry: InboxAttempt = { at: Date.now(), attempt, error: verdict.error };
          await job.log(JSON.stringify(entry));
          if (verdict.kind === "dead") throw new UnrecoverableError(verdict.error);
          throw new RetryLater(verdict.error, verdict.delayMs);
        },
        {
          ...base,
          concurrency: consumeOptions.concurrency ?? 10,
          lockDuration: options.lockDurationMs ?? DEFAULT_LOCK_DURATION_MS,
          stalledInterval: options.stalledIntervalMs ?? DEFAULT_STALLED_INTERVAL_MS,
          // A job whose worker died is handed back, however often that happens; the idempotency store keeps
          // the effect single.
          maxStalledCount: 1_000_000,
          settings: {
            backoffStrategy: (_attempts: number, _type?: string, error?: Error) =>
              error instanceof RetryLater ? error.delayMs : 1_000,
          },
        },
      );
      worker.on("error", () => {}); // connection trouble: BullMQ reconnects; a failed job is reported per job
      worker.on("completed", (job) => held.delete(String(job.id)));
      worker.on("failed", (job) => {
        if (job !== undefined) held.delete(String(job.id));
      });
      const rescueRedis = await rescueRedisOf(options.connection);
      const watch =
        rescueRedis === undefined ? undefined : watchLostFetches({ worker, queue, redis: rescueRedis, held });
      const closeWatch = () => watch?.close();
      workers.set(worker, closeWatch);
      await worker.waitUntilReady();
      return {
        async stop(stopOptions = {}) {
          // close() waits for the events in flight; past the timeout they are handed back when their lock expires.
          const closing = worker.close();
          await Promise.race([closing, new Promise((resolve) => setTimeout(resolve, stopOptions.timeoutMs ?? 30_000))]);
          closeWatch();
          workers.delete(worker);
        },
      };
    },

    async listDeadLetters(listOptions = {}) {
      const failed = await queue.getFailed(0, (listOptions.limit ?? 100) - 1);
      return Promise.all(failed.map(async (job) => deadLetterOf(job as Job<JobData>, await logsOf(String(job.id)))));
    },

    async getDeadLetter(id) {
      const job = await queue.getJob(id);
      if (job === undefined || !(await job.isFailed())) return undefined;
      return deadLetterOf(job, await logsOf(id));
    },

    async replayDeadLetter(id) {
      const job = await queue.getJob(id);
      if (job === undefined || !(await job.isFailed())) return false;
      await job.updateData({ ...job.data, replayedAt: Date.now() });
      await job.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true });
      return true;
    },

    async replayAllDeadLetters() {
      let replayed = 0;
      for (;;) {
        const page = await queue.getFailed(0, 499);
        if (page.length === 0) return replayed;
        for (const job of page) if (await inbox.replayDeadLetter(String(job.id))) replayed += 1;
      }
    },

    async stats(): Promise<InboxStats> {
      const counts = await queue.getJobCounts("waiting", "delayed", "prioritized", "active", "failed");
      const [oldest] = await queue.getJobs(["waiting", "delayed"], 0, 0, true);
      return {
        waiting: (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0),
        active: counts.active ?? 0,
        deadLetters: counts.failed ?? 0,
        oldestWaitingAgeMs: oldest === undefined ? undefined : Math.max(0, Date.now() - oldest.timestamp),
      };
    },

    async close() {
      await Promise.all(
        [...workers].map(async ([worker, closeWatch]) => {
          await worker.close();
          closeWatch();
        }),
      );
      await queue.close();
      acknowledger?.close();
    },
  };
  await queue.waitUntilReady();
  return inbox;
}

function withWorkerSettings(connection: ConnectionOptions): ConnectionOptions {
  // An ioredis instance is used as given; plain options get BullMQ's required setting for workers (a command waits
  // while Redis is away, and ioredis sends it again once it is back: a completion is retried, never dropped) and a
  // reconnect within a second of Redis's return (unless the options bring their own retryStrategy).
  if (typeof (connection as { duplicate?: unknown }).duplicate === "function") return connection;
  return { retryStrategy: reconnectDelay, ...(connection as object), maxRetriesPerRequest: null } as ConnectionOptions;
}

function attemptsOf(logs: string[]): InboxAttempt[] {
  const attempts: InboxAttempt[] = [];
  for (const line of logs) {
    try {
      const entry = JSON.parse(line) as InboxAttempt;
      if (typeof entry.error === "string") attempts.push(entry);
    } catch {
      // a log line someone else wrote
    }
  }
  return attempts;
}
