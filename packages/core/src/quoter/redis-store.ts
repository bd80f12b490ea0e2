import { ConfigurationError } from "../errors/validation.js";
import {
  type IoRedisLikeClient,
  type NodeRedisLikeClient,
  type RedisConnection,
  redisConnection,
} from "../idempotency/redis/command-sender.js";
import { decodeEntry, encodeEntry } from "./entry-codec.js";
import type { RateEntry, RateStore } from "./types.js";

/** Options of {@link redisRateStore}. */
export interface RedisRateStoreOptions {
  /** An ioredis or node-redis (v4/v5) client you created and connected; the store never closes it. */
  client: IoRedisLikeClient | NodeRedisLikeClient;
  /** Prefix of every key. Default `"kirimbayar:rates:"`. */
  keyPrefix?: string;
}

// Deletes the lock only if this instance still holds it (it may have expired and been taken by another).
const UNLOCK_SCRIPT = `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`;
// One courier's answer into its route's hash, and the hash kept until the max age after its latest answer.
const SET_SCRIPT = `redis.call("HSET", KEYS[1], ARGV[1], ARGV[2]) return redis.call("PEXPIRE", KEYS[1], ARGV[3])`;
const SCAN_ROUNDS_LIMIT = 100_000;

const globEscaped = (text: string) => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

const ttlOf = (ttlMs: number) => String(Math.max(1, Math.ceil(ttlMs)));

/**
 * Courier answers in Redis, shared by every instance of the shop: one hash per route, a field per courier (compact
 * JSON), so a quote is one `HMGET`; the hash expires the quoter's maximum age after its latest answer. A short `SET NX PX` lock
 * per question lets identical questions asked at once by several instances reach the provider once. Bring your own
 * ioredis or node-redis client (Redis is an optional peer: nothing is added to your dependencies). When Redis fails
 * or is slow, the quoter answers from its local memory copy and the provider, and tries Redis again a second later.
 *
 * Create the client so that it fails fast while disconnected (ioredis `enableOfflineQueue: false`, node-redis
 * `disableOfflineQueue: true`): a queued command only makes the quoter wait for its time limit.
 *
 * @example
 * import Redis from "ioredis";
 * import { createRateQuoter } from "@kirimbayar/core/quoter";
 * import { redisRateStore } from "@kirimbayar/core/quoter/redis";
 *
 * const redis = new Redis(process.env.REDIS_URL!, { enableOfflineQueue: false });
 * const quoter = createRateQuoter({ client: shipping, couriers: ["jne", "pos"], cache: { store: redisRateStore({ client: redis }) } });
 */
export class RedisRateStore implements RateStore {
  readonly #connection: RedisConnection;
  readonly #prefix: string;
  readonly #tokens = new Map<string, string>();

  constructor(options: RedisRateStoreOptions) {
    if (options === null || typeof options !== "object") {
      throw new ConfigurationError("options", "redisRateStore takes { client, keyPrefix? }");
    }
    this.#connection = redisConnection(options.client, "redisRateStore");
    const prefix = options.keyPrefix ?? "kirimbayar:rates:";
    if (typeof prefix !== "string") throw new ConfigurationError("keyPrefix", "keyPrefix must be a string");
    this.#prefix = prefix;
  }

  async get(key: string, couriers: readonly string[]): Promise<(RateEntry | undefined)[]> {
    if (couriers.length === 0) return [];
    const hash = this.#prefix + key;
    const reply = await this.#send(["HMGET", hash, ...couriers], hash);
    if (!Array.isArray(reply)) throw new TypeError("Redis answered HMGET with something else than a list");
    return reply.map((value, i) => decodeEntry(value, couriers[i] as string));
  }

  async set(key: string, courier: string, entry: RateEntry, ttlMs: number): Promise<void> {
    const hash = this.#prefix + key;
    await this.#send(["EVAL", SET_SCRIPT, "1", hash, courier, encodeEntry(entry), ttlOf(ttlMs)], hash);
  }

  async delete(key: string, couriers: readonly string[]): Promise<void> {
    const hash = this.#prefix + key;
    if (couriers.length > 0) await this.#send(["HDEL", hash, ...couriers], hash);
  }

  async deletePrefix(prefix: string): Promise<void> {
    // SCAN walks one node of a cluster, and UNLINK of keys in several slots is refused there.
    if (this.#connection.cluster) {
      throw new ConfigurationError(
        "client",
        "redisRateStore: invalidating every price (invalidateAll) needs one Redis server or Sentinel; on a Redis Cluster, invalidate routes one by one",
      );
    }
    const pattern = `${globEscaped(this.#prefix + prefix)}*`;
    let cursor = "0";
    for (let round = 0; round < SCAN_ROUNDS_LIMIT; round++) {
      const reply = (await this.#send(["SCAN", cursor, "MATCH", pattern, "COUNT", "1000"])) as [unknown, unknown];
      cursor = String(reply[0]);
      const found = (reply[1] as unknown[]).map(String);
      if (found.length > 0) await this.#send(["UNLINK", ...found]);
      if (cursor === "0") return;
    }
  }

  async lock(key: string, courier: string, ttlMs: number): Promise<boolean> {
    const lockKey = this.#lockKey(key, courier);
    const token = crypto.randomUUID();
    const reply = await this.#send(["SET", lockKey, token, "NX", "PX", ttlOf(ttlMs)], lockKey);
    if (reply === null || reply === undefined) return false;
    this.#tokens.set(lockKey, token);
    return true;
  }

  async unlock(key: string, courier: string): Promise<void> {
    const lockKey = this.#lockKey(key, courier);
    const token = this.#tokens.get(lockKey);
    if (token === undefined) return;
    this.#tokens.delete(lockKey);
    await this.#send(["EVAL", UNLOCK_SCRIPT, "1", lockKey, token], lockKey);
  }

  // One command; `key` routes it to its node on a cluster client.
  #send(args: string[], key?: string): Promise<unknown> {
    return this.#connection.send(args, key);
  }

  // A route key ends with its weight (digits), so "<route>:lock:<courier>" is never a route's hash.
  #lockKey(key: string, courier: string): string {
    return `${this.#prefix}${key}:lock:${courier}`;
  }
}

/**
 * A {@link RedisRateStore}: pass it as a quoter's `cache.store`.
 *
 * @example
 * createRateQuoter({ client: shipping, couriers: ["jne"], cache: { store: redisRateStore({ client: redis }) } });
 */
export function redisRateStore(options: RedisRateStoreOptions): RedisRateStore {
  return new RedisRateStore(options);
}
