// A worker's hold on the events it fetched. pg-boss 10 has no heartbeat: a job stays "active" until its
// `started_on + expire_in` is past, then pg-boss's maintenance round (every few minutes) hands it back. So the
// worker renews `started_on` of every job it holds in one statement each heartbeat, and each worker hands back
// the jobs whose hold ran out every reap interval: a killed worker's events come back within
// expireInSeconds + reapIntervalMs, and a slow but alive handler keeps its event for as long as it runs.
import { withTimeLimit } from "./backoff.js";
import type { InboxStatements } from "./statements.js";

/** A job this worker holds, and the retry count its fetch gave it (the fence of every later statement). */
export interface HeldJob {
  readonly id: string;
  readonly retryCount: number;
}

/** What {@link HoldKeeper} needs. */
export interface HoldKeeperOptions {
  readonly name: string;
  readonly statements: InboxStatements;
  readonly sql: (text: string, values: unknown[]) => Promise<{ rows: unknown[] }>;
  readonly heartbeatIntervalMs: number;
  readonly reapIntervalMs: number;
  /** A heartbeat or a reap that failed: the next one comes at its interval. */
  readonly onFailure: (error: unknown, what: string) => void;
}

/** Keeps the jobs a worker holds: renews their hold (heartbeat) and hands back other workers' expired ones. */
export class HoldKeeper {
  readonly #held = new Map<string, HeldJob>();
  readonly #options: HoldKeeperOptions;
  readonly #timers: ReturnType<typeof setTimeout>[] = [];
  #stopped = false;

  constructor(options: HoldKeeperOptions) {
    this.#options = options;
  }

  /** How many jobs this worker holds. */
  get size(): number {
    return this.#held.size;
  }

  hold(job: HeldJob): void {
    this.#held.set(job.id, job);
  }

  /** The job is settled (or left to the reaper): its hold is no longer renewed. */
  release(id: string): void {
    this.#held.delete(id);
  }

  /** Starts the heartbeat and the reaper (the reaper at once: a restarted worker takes back its predecessor's). */
  start(): void {
    this.#every("heartbeat", this.#options.heartbeatIntervalMs, () => this.heartbeat(), false);
    this.#every("reap", this.#options.reapIntervalMs, () => this.reap(), true);
  }

  /** Stops renewing: jobs still held come back to the queue when their hold runs out. */
  stop(): void {
    this.#stopped = true;
    for (const timer of this.#timers) clearTimeout(timer);
  }

  /** Renews the hold of every held job; returns how many the database renewed. */
  async heartbeat(): Promise<number> {
    if (this.#held.size === 0) return 0;
    const held = [...this.#held.values()];
    const { rows } = await this.#options.sql(`${this.#options.statements.heartbeat} RETURNING j.id`, [
      this.#options.name,
      held.map((job) => job.id),
      held.map((job) => job.retryCount),
    ]);
    return rows.length;
  }

  /** Hands back the queue's active jobs whose hold ran out (none of this worker's); returns how many. */
  async reap(): Promise<number> {
    const { rows } = await this.#options.sql(this.#options.statements.reap, [
      this.#options.name,
      [...this.#held.keys()],
    ]);
    return rows.length;
  }

  #every(what: string, intervalMs: number, task: () => Promise<unknown>, now: boolean): void {
    const slot = this.#timers.length;
    const tick = async () => {
      try {
        // A query on a connection that died silently could hang for minutes: the next tick must not wait for it.
        await withTimeLimit(task(), Math.max(intervalMs, 1_000), what);
      } catch (error) {
        this.#options.onFailure(error, what);
      }
      if (!this.#stopped) this.#timers[slot] = schedule(tick, intervalMs);
    };
    this.#timers.push(schedule(tick, now ? 0 : intervalMs));
  }
}

function schedule(tick: () => Promise<void>, ms: number): ReturnType<typeof setTimeout> {
  const timer = setTimeout(() => void tick(), ms);
  timer.unref?.(); // the worker's own loop keeps the process alive, not its heartbeat
  return timer;
}
