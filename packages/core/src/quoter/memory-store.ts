import { LRUCache } from "lru-cache";
import { ConfigurationError } from "../errors/validation.js";
import type { RateEntry, RateStore } from "./types.js";

/** Options of {@link memoryRateStore}. */
export interface MemoryRateStoreOptions {
  /** Most routes kept (each with its couriers' answers); the least recently used goes first. Default 5,000. */
  max?: number;
}

/** Default bound of a memory rate store, in routes. */
export const DEFAULT_MEMORY_RATE_STORE_MAX = 5_000;
const LARGEST_MAX = 10_000_000;

/**
 * One route's answers by courier, and a version that changes with every write or delete of the route, so that a
 * quoter can tell at a glance that a quote it built from them is still what the route holds.
 */
export interface RouteSlot {
  readonly answers: Map<string, RateEntry>;
  version: number;
}

/**
 * A bounded LRU of routes in this process (lru-cache, already core's one dependency), each holding its couriers'
 * answers: a quote is one lookup. Entries are kept as they are (no copy, no serialisation): the quoter freezes them,
 * so a caller cannot change what the next quote gets. Age is judged by the quoter on its own clock, so the store sets
 * no timer and honours no TTL itself.
 *
 * @example
 * const quoter = createRateQuoter({ client, couriers, cache: { store: memoryRateStore({ max: 20_000 }) } });
 */
export class MemoryRateStore implements RateStore {
  readonly #routes: LRUCache<string, RouteSlot>;

  constructor(options: MemoryRateStoreOptions = {}) {
    const max = options.max ?? DEFAULT_MEMORY_RATE_STORE_MAX;
    if (!Number.isInteger(max) || max < 1 || max > LARGEST_MAX) {
      throw new ConfigurationError("max", `max must be an integer from 1 to ${LARGEST_MAX}`);
    }
    // A route leaving the cache (evicted, deleted, replaced) moves its version, so no quote built from it is reused.
    this.#routes = new LRUCache<string, RouteSlot>({
      max,
      dispose: (slot) => {
        slot.version += 1;
      },
    });
  }

  get(key: string, couriers: readonly string[]): (RateEntry | undefined)[] {
    const answers = this.#routes.get(key)?.answers;
    const entries = new Array<RateEntry | undefined>(couriers.length);
    if (answers !== undefined)
      for (let i = 0; i < couriers.length; i++) entries[i] = answers.get(couriers[i] as string);
    return entries;
  }

  /** The route's slot, counted as used (the quoter's hit path); `undefined` when the route holds nothing. */
  slot(key: string): Readonly<RouteSlot> | undefined {
    return this.#routes.get(key);
  }

  /** The route's answers without counting it as used (for the quoter's own bookkeeping). */
  peek(key: string): ReadonlyMap<string, RateEntry> | undefined {
    return this.#routes.peek(key)?.answers;
  }

  set(key: string, courier: string, entry: RateEntry): void {
    const slot = this.#routes.get(key);
    if (slot === undefined) {
      this.#routes.set(key, { answers: new Map([[courier, entry]]), version: 0 });
    } else {
      slot.answers.set(courier, entry);
      slot.version += 1;
    }
  }

  delete(key: string, couriers: readonly string[]): void {
    const slot = this.#routes.peek(key);
    if (slot === undefined) return;
    for (const courier of couriers) slot.answers.delete(courier);
    slot.version += 1;
    if (slot.answers.size === 0) this.#routes.delete(key);
  }

  deletePrefix(prefix: string): void {
    const doomed: string[] = [];
    for (const key of this.#routes.keys()) if (key.startsWith(prefix)) doomed.push(key);
    for (const key of doomed) this.#routes.delete(key);
  }

  /** Number of routes held. */
  get size(): number {
    return this.#routes.size;
  }
}

/**
 * A {@link MemoryRateStore}: the default store of a quoter, and the local copy a quoter keeps beside a shared store.
 *
 * @example
 * createRateQuoter({ client, couriers: ["jne", "pos"], cache: { store: memoryRateStore({ max: 2_000 }) } });
 */
export function memoryRateStore(options: MemoryRateStoreOptions = {}): MemoryRateStore {
  return new MemoryRateStore(options);
}
