import { ConfigurationError } from "../errors/validation.js";
import {
  type IoRedisLikeClient,
  type NodeRedisLikeClient,
  type RedisCommandSender,
  redisCommandSender,
} from "../idempotency/redis/command-sender.js";
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
const SCAN_ROUNDS_LIMIT = 100_000;

const globEscaped = (text: string) => text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);

function entryOf(value: unknown): RateEntry | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const entry = JSON.parse(value) as RateEntry;
    return typeof entry?.fetchedAt === "number" && Array.isArray(entry.options) ? entry : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Courier answers in Redis, shared by every instance of the shop: `MGET` of a quote's couriers in one round trip,
 * entries as JSON with a `PX` expiry of the quoter's maximum age, and a short `SET NX PX` lock per question so that
 * identical questions asked at once by several instances reach the provider once. Bring your own ioredis or
 * node-redis client (Redis is an optional peer: nothing is added to your dependencies). When Redis fails or is slow,
 * the quoter answers from its local memory copy and the provider, and tries Redis again a second later.
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
  readonly #send: RedisCommandSender;
  readonly #prefix: string;
  readonly #tokens = new Map<string, string>();

  constructor(options: RedisRateStoreOptions) {
    if (options === null || typeof options !== "object") {
      throw new ConfigurationError("options", "redisRateStore takes { client, keyPrefix? }");
    }
    this.#send = redisCommandSender(options.client, "redisRateStore");
    const prefix = options.keyPrefix ?? "kirimbayar:rates:";
    if (typeof prefix !== "string") throw new ConfigurationError("keyPrefix", "keyPrefix must be a string");
    this.#prefix = prefix;
  }

  async get(keys: readonly string[]): Promise<(RateEntry | undefined)[]> {
    if (keys.length === 0) return [];
    const reply = await this.#send(["MGET", ...keys.map((key) => this.#prefix + key)]);
    if (!Array.isArray(reply)) throw new TypeError("Redis answered MGET with something else than a list");
    return reply.map(entryOf);
  }

  async set(key: string, entry: RateEntry, ttlMs: number): Promise<void> {
    const ttl = String(Math.max(1, Math.ceil(ttlMs)));
    await this.#send(["SET", this.#prefix + key, JSON.stringify(entry), "PX", ttl]);
  }

  async delete(keys: readonly string[]): Promise<void> {
    if (keys.length > 0) await this.#send(["DEL", ...keys.map((key) => this.#prefix + key)]);
  }

  async deletePrefix(prefix: string): Promise<void> {
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

  async lock(key: string, ttlMs: number): Promise<boolean> {
    const token = crypto.randomUUID();
    const ttl = String(Math.max(1, Math.ceil(ttlMs)));
    const reply = await this.#send(["SET", `${this.#prefix}${key}:lock`, token, "NX", "PX", ttl]);
    if (reply === null || reply === undefined) return false;
    this.#tokens.set(key, token);
    return true;
  }

  async unlock(key: string): Promise<void> {
    const token = this.#tokens.get(key);
    if (token === undefined) return;
    this.#tokens.delete(key);
    await this.#send(["EVAL", UNLOCK_SCRIPT, "1", `${this.#prefix}${key}:lock`, token]);
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
