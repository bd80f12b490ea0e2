import { KirimbayarError } from "../errors/base.js";
import type { CourierHealth } from "./courier-health.js";
import { frozenEntry } from "./entry.js";
import { Flight } from "./flight.js";
import type { CostOperation } from "./operations.js";
import type { RateCache } from "./rate-cache.js";
import type { QuoterCounter } from "./stats.js";
import type { RateOption } from "./types.js";

/** How the pricer asks the provider. */
export interface PricerSettings {
  operation: CostOperation;
  /** `undefined` when the quoter caches nothing (answers are still coalesced). */
  cache: RateCache | undefined;
  health: CourierHealth;
  counter: QuoterCounter;
  clock: () => number;
  callTimeoutMs: number;
  /** `undefined`: every courier is priced in a call of its own. */
  hedgeMs: number | undefined;
  maxAgeMs: number;
  /** How often a quote waiting on another instance's call looks for its answer. */
  pollMs: number;
}

/** Couriers of one route to ask the provider about. */
export interface PriceRequest {
  /** The operation's input without `courier`. */
  input: Readonly<Record<string, unknown>>;
  /** Whether these couriers may share a call (see {@link CostOperation.batchable}). */
  batchable: boolean;
  /** The route key (see {@link RateStore}). */
  route: string;
  couriers: readonly string[];
  /** When the entries the quote saw were fetched: a newer entry is the answer another instance was asked for. */
  seen: readonly (number | undefined)[];
}

/** What a question of a {@link PriceRequest} is about. */
interface Question {
  courier: string;
  flight: Flight;
  seen: number | undefined;
}

/** Where a question is tracked in flight: its route and courier. */
const flightKey = (route: string, courier: string) => `${route}\n${courier}`;

/** Thrown (as a courier's failure) when another instance's call for a price never produced it. */
export class QuoteWaitError extends KirimbayarError {
  constructor(message: string) {
    super(message, { code: "quote_wait_timeout" });
  }
}

const isNotServed = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === "no_courier_service";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Asks the provider for courier prices, once per question however many quotes want it.
 *
 * Couriers in good standing share one multi-courier call (one call of the account's allowance for the route instead
 * of one per courier). A courier that was recently slow or failing, or every courier when batching is off or the
 * input prices one courier only, gets a call of its own. A shared call that fails, or is still unanswered after the hedge delay, is split:
 * each courier it still owes gets a call of its own (the shared call goes on; the first answer wins), and a courier
 * whose own call is then slow or fails is marked. So a slow or failing courier costs the others nothing but the
 * hedge delay, once. With a shared store, a question another instance holds the lock for is not asked again here:
 * this instance polls the store for the answer, and takes over if the other instance let go without one.
 */
export class Pricer {
  readonly #settings: PricerSettings;
  readonly #flights = new Map<string, Flight>();

  constructor(settings: PricerSettings) {
    this.#settings = settings;
  }

  /** A flight per courier: one already asked (`joined` counts those) or a new one, asked now. */
  ask(request: PriceRequest): { flights: Flight[]; joined: number } {
    const flights: Flight[] = [];
    const own: Question[] = [];
    let joined = 0;
    for (let i = 0; i < request.couriers.length; i++) {
      const courier = request.couriers[i] as string;
      const key = flightKey(request.route, courier);
      let flight = this.#flights.get(key);
      if (flight !== undefined) {
        joined += 1;
      } else {
        flight = this.#track(new Flight(request.route, courier, key));
        own.push({ courier, flight, seen: request.seen[i] });
      }
      flights.push(flight);
    }
    if (own.length > 0) void this.#start(request, own);
    return { flights, joined };
  }

  /**
   * Questions in flight for these couriers of `route` (every question when omitted) are asked afresh next time, and
   * their answers not cached.
   */
  forget(route?: string, couriers?: readonly string[]): void {
    const doomed =
      route === undefined ? [...this.#flights.keys()] : (couriers ?? []).map((courier) => flightKey(route, courier));
    for (const key of doomed) {
      const flight = this.#flights.get(key);
      if (flight === undefined) continue;
      flight.forgotten = true;
      this.#flights.delete(key);
    }
  }

  #track(flight: Flight): Flight {
    this.#flights.set(flight.key, flight);
    void flight.promise.then(() => {
      if (this.#flights.get(flight.key) === flight) this.#flights.delete(flight.key);
      if (flight.locked) this.#settings.cache?.unlock(flight.route, flight.courier);
    });
    return flight;
  }

  async #start(request: PriceRequest, questions: Question[]): Promise<void> {
    const { cache, hedgeMs, health, clock, counter } = this.#settings;
    let mine = questions;
    if (cache?.shared) {
      const lockMs = this.#settings.callTimeoutMs + 1_000;
      const taken = await Promise.all(questions.map((q) => cache.lock(request.route, q.courier, lockMs)));
      const locked: Question[] = [];
      questions.forEach((question, i) => {
        if (taken[i]) {
          question.flight.locked = true;
          locked.push(question);
        } else {
          counter.saved("coalesced", 1);
          void this.#awaitOtherInstance(request, question);
        }
      });
      mine = await this.#notAnsweredMeanwhile(request, locked);
    }
    if (mine.length === 0) return;
    const now = clock();
    const healthy =
      hedgeMs !== undefined && request.batchable ? mine.filter((q) => !health.isIsolated(q.courier, now)) : [];
    const together = healthy.length >= 2 ? healthy : [];
    if (together.length > 0) void this.#askTogether(request, together, hedgeMs as number);
    for (const question of mine) if (!together.includes(question)) void this.#askAlone(request, question);
  }

  /**
   * The locked questions still to ask. Another instance may have asked one, written its answer and let go of the lock
   * between this instance's cache read and its lock: that answer is taken from the shared store (checked again under
   * the lock) rather than paid for with a second provider call.
   */
  async #notAnsweredMeanwhile(request: PriceRequest, locked: Question[]): Promise<Question[]> {
    if (locked.length === 0) return locked;
    const { cache, counter } = this.#settings;
    const entries = await (cache as RateCache).read(
      request.route,
      locked.map((q) => q.courier),
    );
    return locked.filter((question, i) => {
      const entry = entries[i];
      if (entry === undefined || (question.seen !== undefined && entry.fetchedAt <= question.seen)) return true;
      counter.saved("coalesced", 1);
      question.flight.begin();
      question.flight.answer(entry);
      return false;
    });
  }

  async #askTogether(request: PriceRequest, questions: Question[], hedgeMs: number): Promise<void> {
    const { operation, callTimeoutMs, counter } = this.#settings;
    const alone = new Set<Question>();
    const split = (question: Question, hedge: boolean) => {
      if (question.flight.settled || alone.has(question)) return;
      alone.add(question);
      void this.#askAlone(request, question, hedge);
    };
    counter.call();
    for (const question of questions) question.flight.begin();
    const hedge = setTimeout(() => {
      // Which courier holds the call back is not known yet: each is priced alone until it answers fast again, so
      // the routes asked meanwhile do not each wait for a hedge of their own.
      const now = this.#settings.clock();
      for (const question of questions) {
        if (!question.flight.settled) this.#settings.health.isolate(question.courier, now);
        split(question, true);
      }
    }, hedgeMs);
    try {
      const options = await operation.call(
        request.input,
        questions.map((q) => q.courier),
        callTimeoutMs,
      );
      clearTimeout(hedge);
      const { byCourier, allMatched } = assignOptions(
        options,
        questions.map((q) => q.courier),
      );
      for (const question of questions) {
        const own = byCourier.get(question.courier) ?? [];
        if (own.length > 0 || allMatched) {
          this.#answered(question, own);
        } else {
          // The answer carries options under codes that were not asked (a display code such as "J&T"): which
          // courier they belong to is unknown, so a courier without options of its own is asked alone.
          split(question, false);
          question.flight.hand();
        }
      }
    } catch (error) {
      clearTimeout(hedge);
      for (const question of questions) {
        if (isNotServed(error)) {
          this.#answered(question, []);
          continue;
        }
        split(question, false);
        question.flight.fail(error);
      }
    }
  }

  async #askAlone(request: PriceRequest, question: Question, hedge = false): Promise<void> {
    const { operation, callTimeoutMs, counter, health, clock, hedgeMs } = this.#settings;
    counter.call(hedge);
    question.flight.begin();
    const started = performance.now();
    const slowTimer =
      hedgeMs === undefined ? undefined : setTimeout(() => health.isolate(question.courier, clock()), hedgeMs);
    const fast = () => hedgeMs === undefined || performance.now() - started <= hedgeMs;
    try {
      const options = await operation.call(request.input, [question.courier], callTimeoutMs);
      health.answered(question.courier, fast());
      this.#answered(question, options);
    } catch (error) {
      if (isNotServed(error)) {
        health.answered(question.courier, fast());
        this.#answered(question, []);
      } else {
        health.failed(question.courier, error, clock());
        question.flight.fail(error, true);
      }
    } finally {
      clearTimeout(slowTimer);
    }
  }

  // Another instance holds the lock: its answer will appear in the shared store. Poll for it; if the lock goes
  // away without one (that instance failed or died), ask the provider here.
  async #awaitOtherInstance(request: PriceRequest, question: Question): Promise<void> {
    const { cache, pollMs, callTimeoutMs } = this.#settings;
    const store = cache as RateCache;
    const flight = question.flight;
    flight.begin();
    const lockMs = callTimeoutMs + 1_000;
    const deadline = performance.now() + lockMs + pollMs;
    const newer = async () => {
      const [entry] = await store.read(request.route, [question.courier]);
      return entry !== undefined && (question.seen === undefined || entry.fetchedAt > question.seen)
        ? entry
        : undefined;
    };
    while (!flight.settled && performance.now() < deadline) {
      await sleep(pollMs);
      const entry = await newer();
      if (entry !== undefined) {
        flight.answer(entry);
        return;
      }
      if (!(await store.lock(request.route, question.courier, lockMs))) continue;
      flight.locked = true;
      const late = await newer();
      if (late !== undefined) {
        flight.answer(late);
        return;
      }
      void this.#askAlone(request, question);
      flight.hand();
      return;
    }
    flight.fail(
      new QuoteWaitError("Another instance was asking the provider for this price and gave no answer in time"),
    );
  }

  #answered(question: Question, options: readonly RateOption[]): void {
    const { cache, clock, counter, maxAgeMs } = this.#settings;
    const entry = frozenEntry({
      fetchedAt: clock(),
      options: options.map((option) => Object.assign({}, option, { courier: question.courier })),
    });
    if (!question.flight.answer(entry)) return;
    counter.fetched();
    if (!question.flight.forgotten) cache?.write(question.flight.route, question.courier, entry, maxAgeMs);
  }
}

/**
 * Shares out the options of a multi-courier answer by courier code (trimmed, lower-cased). `allMatched` is false when
 * some option's code was not asked, so an empty list then does not prove "not served".
 *
 * @example
 * assignOptions([{ code: "JNE", ... }], ["jne", "pos"]).byCourier.get("pos"); // []
 */
export function assignOptions(
  options: readonly RateOption[],
  couriers: readonly string[],
): { byCourier: Map<string, RateOption[]>; allMatched: boolean } {
  const byCourier = new Map<string, RateOption[]>(couriers.map((courier) => [courier, []]));
  let allMatched = true;
  for (const option of options) {
    const own = byCourier.get(option.code.trim().toLowerCase());
    if (own === undefined) allMatched = false;
    else own.push(option);
  }
  return { byCourier, allMatched };
}
