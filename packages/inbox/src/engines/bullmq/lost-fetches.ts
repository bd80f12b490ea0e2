import { Job, type Queue, type Worker } from "bullmq";

/** The few Redis commands the rescue reads with (an ioredis client of its own, failing fast while Redis is away). */
export interface RescueRedis {
  lrange(key: string, start: number, stop: number): Promise<string[]>;
  mget(...keys: string[]): Promise<(string | null)[]>;
  disconnect(): void;
}

/** Options of {@link watchLostFetches}. */
export interface LostFetchOptions {
  worker: Worker;
  queue: Queue;
  redis: RescueRedis;
  /** Ids of the events this worker's processor has taken and not yet seen settled. */
  held: ReadonlySet<string>;
  /** Pause between tries while Redis is still away (default 1 s). */
  retryMs?: number;
  /** How long a lost event must stay so before it is handed back (default 2 s): a fetch just answered is not lost. */
  confirmMs?: number;
}

/** A running watch; `close()` stops it. */
export interface LostFetchWatch {
  /** Events handed back so far. */
  readonly rescued: number;
  close(): void;
}

/**
 * Hands back, after each Redis outage, the events Redis gave this worker but whose answer the outage swallowed. Redis
 * may run a fetch (BullMQ's moveToActive, or a completion that also takes the next event) and crash before replying:
 * the event is active, locked with this worker's token, and no one runs it nor renews its lock. BullMQ's stalled check
 * would take it back only once that lock expires (`lockDurationMs`, 30 s by default). Here, once Redis answers again,
 * each active event locked with this worker's token (`<worker id>:<n>`) that its processor never took, and still so
 * `confirmMs` later with the same token, goes back to the queue (BullMQ's moveToWait, which checks the token). The
 * events the processor holds, or whose outcome it is still settling, are never touched.
 */
export function watchLostFetches(options: LostFetchOptions): LostFetchWatch {
  const { worker, queue, redis, held } = options;
  const retryMs = options.retryMs ?? 1_000;
  const confirmMs = options.confirmMs ?? 2_000;
  const activeKey = queue.toKey("active");
  const ownToken = `${worker.id}:`;
  let closed = false;
  let rescued = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let generation = 0;

  // Active events locked with this worker's token that its processor does not hold: id -> token.
  async function strays(): Promise<Map<string, string>> {
    const ids = await redis.lrange(activeKey, 0, -1);
    const found = new Map<string, string>();
    if (ids.length === 0) return found;
    const tokens = await redis.mget(...ids.map((id) => queue.toKey(`${id}:lock`)));
    ids.forEach((id, i) => {
      const token = tokens[i];
      if (typeof token === "string" && token.startsWith(ownToken) && !held.has(id)) found.set(id, token);
    });
    return found;
  }

  async function handBack(id: string, token: string): Promise<void> {
    const job = await Job.fromId(queue, id);
    if (job === undefined) return;
    await job.moveToWait(token); // refused (lock changed or gone) when the event moved on meanwhile
    rescued += 1;
  }

  // Tries until Redis answers, then hands back what is still lost `confirmMs` after the first look.
  function sweep(run: number, seen?: Map<string, string>): void {
    timer = setTimeout(
      async () => {
        if (closed || run !== generation) return;
        let found: Map<string, string>;
        try {
          found = await strays();
        } catch {
          sweep(run, seen); // Redis is still away
          return;
        }
        if (seen === undefined) {
          if (found.size > 0) sweep(run, found);
          return;
        }
        for (const [id, token] of found) {
          if (seen.get(id) === token && !held.has(id)) await handBack(id, token).catch(() => {});
        }
      },
      seen === undefined ? retryMs : confirmMs,
    );
  }

  const onClose = () => {
    if (closed) return;
    clearTimeout(timer);
    generation += 1;
    sweep(generation);
  };
  worker.on("ioredis:close", onClose);
  return {
    get rescued() {
      return rescued;
    },
    close() {
      closed = true;
      clearTimeout(timer);
      worker.off("ioredis:close", onClose);
      redis.disconnect();
    },
  };
}
