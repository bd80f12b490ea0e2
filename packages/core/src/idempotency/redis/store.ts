import type { IdempotencyRecordView } from "../../journal/types.js";
import { timerDelay } from "../../timer-delay.js";
import { type ClaimResult, type IdempotencyStore, IdempotencyStoreUnavailableError } from "../types.js";
import { type IoRedisLikeClient, type NodeRedisLikeClient, redisCommandSender } from "./command-sender.js";
import { type ObservableRedisClient, RedisReadiness } from "./readiness.js";
import { CLAIM_SCRIPT, COMPLETE_SCRIPT, INSPECT_SCRIPT, RELEASE_SCRIPT, WITHDRAW_SCRIPT } from "./scripts.js";

/** Options of {@link RedisIdempotencyStore}. */
export interface RedisIdempotencyStoreOptions {
  /** An ioredis or node-redis (v4/v5) client you created and connected; the store never closes it. */
  client: IoRedisLikeClient | NodeRedisLikeClient;
  /** Prefix of every key; default `"kirimbayar:webhook:"`. */
  keyPrefix?: string;
  /**
   * Time one Redis operation may take before the store gives up and the receiver answers 503 (default 1,000 ms).
   * Bounds the wait when Redis is down and the client queues or retries commands. While the client is reconnecting,
   * an operation waits up to this long for it to be ready, so keep the client's reconnect back-off below it (see
   * the Redis guide, docs/guides/exactly-once/redis.md).
   */
  operationTimeoutMs?: number;
  /** Where the one-time advice about the client's offline queue goes; default `console`. */
  logger?: { warn(message: string): void };
}

/**
 * Idempotency store over Redis, shared by every process and instance that receives webhooks. Bring your own
 * ioredis or node-redis client (no dependency is added). Claims are atomic (`SET NX PX` inside a script that also
 * reads the current state in the same round trip); release and completion are compare-and-delete and
 * compare-and-set scripts, so only the delivery holding the lease can finish it.
 *
 * Create the client so that it fails fast while disconnected: with ioredis `enableOfflineQueue: false`, with
 * node-redis `disableOfflineQueue: true`. Otherwise the commands of deliveries long answered 503 pile up while Redis
 * is away and all run when it is back. A claim that Redis applies after the store's time limit (it was queued, or
 * Redis was frozen and ran it when it woke) is withdrawn as soon as its answer arrives, so the provider's retry can
 * claim the key at once instead of being answered 409 until the lease ends.
 *
 * @example
 * import Redis from "ioredis";
 * const store = new RedisIdempotencyStore({ client: new Redis(process.env.REDIS_URL!, { enableOfflineQueue: false }) });
 */
export class RedisIdempotencyStore implements IdempotencyStore {
  readonly #send: (args: string[]) => Promise<unknown>;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #readiness: RedisReadiness;

  constructor(options: RedisIdempotencyStoreOptions) {
    this.#send = redisCommandSender(options.client, "RedisIdempotencyStore");
    this.#prefix = options.keyPrefix ?? "kirimbayar:webhook:";
    this.#timeoutMs = timerDelay(options.operationTimeoutMs ?? 1_000);
    this.#readiness = new RedisReadiness(options.client as ObservableRedisClient);
    adviseOnOfflineQueue(options.client, options.logger ?? console);
  }

  /** What the console shows of `key`'s record (state, attempts, lease or retention end); never the owner token. */
  async inspect(key: string): Promise<IdempotencyRecordView | undefined> {
    const reply = await this.#eval(INSPECT_SCRIPT, key, "", 1);
    if (!Array.isArray(reply)) throw unexpectedReply("inspect");
    const [value, ttl, released] = reply.map((part) => String(part)) as [string, string, string];
    const expiresAt = Number(ttl) > 0 ? Date.now() + Number(ttl) : undefined;
    const failed = Number(released) || 0;
    const withExpiry = <T extends object>(view: T) => (expiresAt === undefined ? view : { ...view, expiresAt });
    if (value === "done") return withExpiry({ key, state: "completed" as const });
    if (value.startsWith("p:")) return withExpiry({ key, state: "in_progress" as const, attempt: failed + 1 });
    return failed > 0 ? { key, state: "released", attempt: failed } : undefined;
  }

  async claim(key: string, owner: string, leaseMs: number): Promise<ClaimResult> {
    const reply = await this.#eval(CLAIM_SCRIPT, key, `p:${owner}`, leaseMs, (late) => {
      // The caller was already told the store did not answer: give the key back if this claim took it.
      if (Array.isArray(late) && Number(late[0]) === 1) {
        this.#eval(WITHDRAW_SCRIPT, key, `p:${owner}`, leaseMs).catch(() => {});
      }
    });
    if (!Array.isArray(reply)) throw unexpectedReply("claim");
    const [claimed, detail] = reply as [unknown, unknown];
    if (Number(claimed) === 1) return { state: "claimed", attempt: Number(detail ?? 0) + 1 };
    return String(detail) === "done" ? { state: "completed" } : { state: "in_progress" };
  }

  async complete(key: string, owner: string, retentionMs: number): Promise<boolean> {
    return Number(await this.#eval(COMPLETE_SCRIPT, key, `p:${owner}`, retentionMs)) === 1;
  }

  async release(key: string, owner: string, retentionMs: number): Promise<boolean> {
    return Number(await this.#eval(RELEASE_SCRIPT, key, `p:${owner}`, retentionMs)) === 1;
  }

  #eval(
    script: string,
    key: string,
    value: string,
    ttlMs: number,
    lateReply?: (reply: unknown) => void,
  ): Promise<unknown> {
    const recordKey = `${this.#prefix}{${key}}`;
    const args = [
      "EVAL",
      script,
      "2",
      recordKey,
      `${recordKey}:attempts`,
      value,
      String(Math.max(1, Math.ceil(ttlMs))),
    ];
    // A client on its way back (Redis just returned) gets the rest of the time limit to be ready: the first
    // delivery after an outage then succeeds instead of being refused by a client a moment from ready.
    const ready = this.#readiness.whenReady();
    if (ready === undefined) return withTimeout(this.#send(args), this.#timeoutMs, lateReply);
    let expired = false;
    const sent = ready.then(() => {
      if (expired) throw new IdempotencyStoreUnavailableError("The Redis client was not ready in time");
      return this.#send(args);
    });
    return withTimeout(sent, this.#timeoutMs, lateReply, () => {
      expired = true;
    });
  }
}

// A reply that arrives after the time limit goes to `lateReply`, for what must not be left applied.
function withTimeout<T>(
  operation: Promise<T>,
  timeoutMs: number,
  lateReply?: (reply: T) => void,
  onTimeout?: () => void,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      onTimeout?.();
      reject(new IdempotencyStoreUnavailableError(`Redis did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    operation.then(
      (value) => {
        clearTimeout(timer);
        if (timedOut) lateReply?.(value);
        else resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(new IdempotencyStoreUnavailableError("Redis command failed", { cause: error }));
      },
    );
  });
}

function unexpectedReply(operation: string): IdempotencyStoreUnavailableError {
  return new IdempotencyStoreUnavailableError(`Redis answered the ${operation} script with an unexpected reply`);
}

// ioredis keeps `options.enableOfflineQueue` (default true); node-redis keeps `options.disableOfflineQueue`.
function adviseOnOfflineQueue(client: unknown, logger: { warn(message: string): void }): void {
  const options = (client as { options?: { enableOfflineQueue?: boolean; disableOfflineQueue?: boolean } }).options;
  if (options === undefined) return;
  const queues =
    "call" in (client as object) ? options.enableOfflineQueue !== false : options.disableOfflineQueue !== true;
  if (queues) {
    logger.warn(
      "RedisIdempotencyStore: the Redis client queues commands while disconnected; the commands of deliveries " +
        "already answered 503 then pile up and all run after the reconnect. Create the client with " +
        "enableOfflineQueue: false (ioredis) or disableOfflineQueue: true (node-redis).",
    );
  }
}
