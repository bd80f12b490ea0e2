import type { IdempotencyRecordView } from "../../journal/types.js";
import { timerDelay } from "../../timer-delay.js";
import { WebhookConfigurationError } from "../../webhooks/errors.js";
import {
  type ClaimResult,
  IdempotencyRecordNotDurableError,
  type IdempotencyStore,
  IdempotencyStoreUnavailableError,
} from "../types.js";
import { type RedisConnection, type RedisLikeClient, redisConnection } from "./command-sender.js";
import { type ObservableRedisClient, RedisReadiness } from "./readiness.js";
import { type RedisReplicaAcknowledgement, type ReplicaWait, replicaWaitOf } from "./replica-acknowledgement.js";
import { CLAIM_SCRIPT, COMPLETE_SCRIPT, INSPECT_SCRIPT, RELEASE_SCRIPT, WITHDRAW_SCRIPT } from "./scripts.js";

/** Options of {@link RedisIdempotencyStore}. */
export interface RedisIdempotencyStoreOptions {
  /**
   * A client you created and connected; the store never closes it. ioredis (`new Redis(url)`, in Sentinel mode
   * `new Redis({ sentinels, name })`, or `new Redis.Cluster(nodes)`) or node-redis v4/v5 (`createClient`,
   * `createCluster`, `createSentinel`).
   */
  client: RedisLikeClient;
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
  /**
   * Off by default. With replicas (Sentinel, Cluster, a managed Redis with replicas), wait for this many replicas to
   * acknowledge each record a delivery's answer depends on (`WAIT` on the same connection, the key's node in a
   * cluster) before the answer: the claim before the handlers run, the completion before the 200, and a completed
   * record a duplicate is answered 200 for. Replication is asynchronous: without this, a record the master
   * acknowledged can be missing on the replica a failover promotes, and a redelivery then runs the handlers again.
   * Fewer acknowledgements in time is a store failure: 503 with nothing run, or, after the handlers ran, the claim
   * released and 503 instead of 200 (also when the completion's outcome is unknown: a node that died mid-write),
   * so the event is never processed again after a 200; the provider's retry may run it again then, as without
   * Redis replicas. It costs one replica round trip per write and, while no replica answers, every delivery is
   * refused; see the Deploying guide (docs/guides/operations/deploying-redis.md).
   *
   * @example
   * new RedisIdempotencyStore({ client, replicaAcknowledgement: { replicas: 1, timeoutMs: 500 } });
   */
  replicaAcknowledgement?: RedisReplicaAcknowledgement;
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
  readonly #connection: RedisConnection;
  readonly #prefix: string;
  readonly #timeoutMs: number;
  readonly #readiness: RedisReadiness;
  readonly #replicaWait: ReplicaWait | undefined;

  constructor(options: RedisIdempotencyStoreOptions) {
    this.#connection = redisConnection(options?.client, "RedisIdempotencyStore");
    const prefix = options.keyPrefix ?? "kirimbayar:webhook:";
    if (typeof prefix !== "string")
      throw new WebhookConfigurationError("RedisIdempotencyStore: keyPrefix must be a string");
    this.#prefix = prefix;
    const timeoutMs = options.operationTimeoutMs ?? 1_000;
    if (!(typeof timeoutMs === "number" && timeoutMs > 0)) {
      throw new WebhookConfigurationError("RedisIdempotencyStore: operationTimeoutMs must be a positive number");
    }
    this.#timeoutMs = timerDelay(timeoutMs);
    this.#replicaWait = replicaWaitOf(options.replicaAcknowledgement, this.#connection, "RedisIdempotencyStore");
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
    const withdraw = () => this.#eval(WITHDRAW_SCRIPT, key, `p:${owner}`, leaseMs).catch(() => {});
    const { reply, acknowledged } = await this.#evalAcknowledged(CLAIM_SCRIPT, key, `p:${owner}`, leaseMs, (late) => {
      // The caller was already told the store did not answer: give the key back if this claim took it.
      if (Array.isArray(late) && Number(late[0]) === 1) withdraw();
    });
    if (!Array.isArray(reply)) throw unexpectedReply("claim");
    const [claimed, detail] = reply as [unknown, unknown];
    if (Number(claimed) === 1) {
      if (!acknowledged) {
        // Nothing ran: the claim goes, so the provider's retry is not answered 409 for a whole lease.
        withdraw();
        throw this.#notAcknowledged("claim");
      }
      return { state: "claimed", attempt: Number(detail ?? 0) + 1 };
    }
    if (String(detail) !== "done") return { state: "in_progress" };
    // A 200 for a duplicate vouches for the record as much as the first delivery's 200 did.
    if (!acknowledged) throw this.#notAcknowledged("completed record");
    return { state: "completed" };
  }

  async complete(key: string, owner: string, retentionMs: number): Promise<boolean> {
    let outcome: { reply: unknown; acknowledged: boolean };
    try {
      outcome = await this.#evalAcknowledged(COMPLETE_SCRIPT, key, `p:${owner}`, retentionMs);
    } catch (error) {
      // With replicaAcknowledgement a completion that cannot be confirmed, for whatever reason (a node that died
      // mid-write, a timeout), is not durable as far as the answer goes: 503 and the claim released, never a 200
      // after retries that a failover can take back.
      if (this.#replicaWait === undefined) throw error;
      throw new IdempotencyRecordNotDurableError("The completion could not be confirmed on the Redis replicas", {
        cause: error,
      });
    }
    const { reply, acknowledged } = outcome;
    const state = Number(reply);
    // 0: another delivery holds the key; there is nothing of this one's to vouch for.
    if (state !== 0 && !acknowledged) throw this.#notAcknowledged("completion");
    return state === 1;
  }

  async release(key: string, owner: string, retentionMs: number): Promise<boolean> {
    return Number(await this.#eval(RELEASE_SCRIPT, key, `p:${owner}`, retentionMs)) === 1;
  }

  #notAcknowledged(what: string): IdempotencyRecordNotDurableError {
    const wait = this.#replicaWait as ReplicaWait;
    return new IdempotencyRecordNotDurableError(
      `Fewer than ${wait.replicas} Redis replica(s) acknowledged the ${what} within ${wait.timeoutMs} ms`,
    );
  }

  #evalArgs(script: string, key: string, value: string, ttlMs: number): { recordKey: string; args: string[] } {
    const recordKey = `${this.#prefix}{${key}}`;
    const ttl = String(Math.max(1, Math.ceil(ttlMs)));
    const touch = this.#replicaWait === undefined ? "0" : "1";
    return { recordKey, args: ["EVAL", script, "2", recordKey, `${recordKey}:attempts`, value, ttl, touch] };
  }

  #eval(script: string, key: string, value: string, ttlMs: number): Promise<unknown> {
    const { recordKey, args } = this.#evalArgs(script, key, value, ttlMs);
    return this.#bounded(() => this.#connection.send(args, recordKey), this.#timeoutMs);
  }

  // The script, then (with replicaAcknowledgement) WAIT right behind it on the same connection: whether as many
  // replicas as asked acknowledged every write of this connection up to the script's.
  async #evalAcknowledged(
    script: string,
    key: string,
    value: string,
    ttlMs: number,
    lateReply?: (reply: unknown) => void,
  ): Promise<{ reply: unknown; acknowledged: boolean }> {
    const { recordKey, args } = this.#evalArgs(script, key, value, ttlMs);
    const wait = this.#replicaWait;
    if (wait === undefined) {
      const reply = await this.#bounded(() => this.#connection.send(args, recordKey), this.#timeoutMs, lateReply);
      return { reply, acknowledged: true };
    }
    const { replies, acknowledged } = await this.#bounded(
      () => wait.run([args], recordKey),
      this.#timeoutMs + wait.timeoutMs,
      lateReply === undefined ? undefined : (late) => lateReply(late.replies[0]),
    );
    return { reply: replies[0], acknowledged: acknowledged >= wait.replicas };
  }

  #bounded<T>(send: () => Promise<T>, timeoutMs: number, lateReply?: (reply: T) => void): Promise<T> {
    // A client on its way back (Redis just returned) gets the rest of the time limit to be ready: the first
    // delivery after an outage then succeeds instead of being refused by a client a moment from ready.
    const ready = this.#readiness.whenReady();
    if (ready === undefined) return withTimeout(send(), timeoutMs, lateReply);
    let expired = false;
    const sent = ready.then(() => {
      if (expired) throw new IdempotencyStoreUnavailableError("The Redis client was not ready in time");
      return send();
    });
    return withTimeout(sent, timeoutMs, lateReply, () => {
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
