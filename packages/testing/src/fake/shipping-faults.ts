import { metaError } from "../fixtures/envelopes.js";
import { SHIPPING_MESSAGES } from "../fixtures/shipping.js";
import { jsonReply } from "./json-reply.js";
import type { FakeContext } from "./world.js";

/**
 * What one courier does in the cost calls (`courier=jne:sicepat:...`: the current interface's domestic, district and
 * international costs, and the legacy Pro and Starter cost calls) while the fault is set. A call asks every courier it
 * names and answers once all of them did, so:
 * - `delayMs`: the call answers that many real milliseconds later (the slowest courier of a call sets its pace);
 * - `status`: the whole call fails with this status (a 5xx such as 500 or 503): one courier's failure costs the call;
 * - `refuse: true`: the courier does not serve any route: its options are left out, and a call of refusing couriers
 *   only answers 400 "Calculate Domestic Shipping Cost not found".
 *
 * `delayMs` combines with `status` (late, then failing) or with `refuse`.
 */
export interface CourierFault {
  delayMs?: number;
  status?: number;
  /** Body message with `status`. Default `"Courier <code> is unavailable"`. */
  message?: string;
  refuse?: boolean;
  /** How many cost calls naming the courier it applies to; default: until cleared. */
  times?: number;
}

interface ArmedCourierFault extends CourierFault {
  remaining: number;
}

/** What the faults make of one cost call: answer now with `reply`, or price only `courier` after `delayMs`. */
export interface CourierFaultVerdict {
  delayMs: number;
  reply?: { status: number; message: string };
  /** The `courier` field without the refusing couriers (`""` when every one refused). */
  courier: string;
}

/**
 * Faults per courier code, each courier on its own. Held by the fault queue, so `clearFaults()` and `reset()` drop
 * them with every other injected fault.
 */
export class CourierFaults {
  // Made on the first fault: a fake per test pays for each Map it makes, and few tests set courier faults.
  #faults: Map<string, ArmedCourierFault> | undefined;

  set(courier: string, fault: CourierFault | undefined): void {
    const code = courier.trim().toLowerCase();
    if (code === "" || code.includes(":")) throw new TypeError("setCourierFault() needs one courier code");
    if (fault === undefined) {
      this.#faults?.delete(code);
      return;
    }
    const { delayMs, status, refuse, times } = fault;
    if (delayMs === undefined && status === undefined && !refuse) {
      throw new TypeError("setCourierFault() needs delayMs, status or refuse (or undefined to clear)");
    }
    if (delayMs !== undefined && (!Number.isFinite(delayMs) || delayMs < 0)) {
      throw new TypeError("delayMs must be a non-negative number of milliseconds");
    }
    if (status !== undefined && (!Number.isInteger(status) || status < 400 || status > 599)) {
      throw new TypeError("status must be an HTTP error status (400-599)");
    }
    if (times !== undefined && (!Number.isInteger(times) || times < 1)) {
      throw new TypeError("times must be a positive integer");
    }
    this.#faults ??= new Map();
    this.#faults.set(code, { ...fault, remaining: times ?? Number.POSITIVE_INFINITY });
  }

  clear(): void {
    this.#faults = undefined;
  }

  get size(): number {
    return this.#faults?.size ?? 0;
  }

  /** The verdict for a call naming `joined` (`a:b:c`), consuming one use of each fault that applies. */
  judge(joined: string): CourierFaultVerdict {
    let delayMs = 0;
    let reply: CourierFaultVerdict["reply"];
    const served: string[] = [];
    for (const raw of joined.split(":")) {
      const code = raw.trim().toLowerCase();
      const fault = this.#faults?.get(code);
      if (fault === undefined) {
        served.push(raw);
        continue;
      }
      fault.remaining -= 1;
      if (fault.remaining <= 0) this.#faults?.delete(code);
      delayMs = Math.max(delayMs, fault.delayMs ?? 0);
      if (fault.status !== undefined) {
        reply ??= { status: fault.status, message: fault.message ?? `Courier ${code} is unavailable` };
      }
      if (!fault.refuse) served.push(raw);
    }
    return reply === undefined ? { delayMs, courier: served.join(":") } : { delayMs, reply, courier: served.join(":") };
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The courier faults of one cost call, after the slowest courier's delay: the verdict, or `undefined` when no fault
 * applies (none set, or no `courier` field). The routes put it in their interface's envelope.
 */
async function courierFaultsOf(c: FakeContext, courier: unknown): Promise<CourierFaultVerdict | undefined> {
  const faults = c.env.faults.couriers;
  if (faults.size === 0 || typeof courier !== "string") return undefined;
  const verdict = faults.judge(courier);
  if (verdict.delayMs > 0) await sleep(verdict.delayMs, c.req.raw.signal);
  return verdict;
}

/**
 * The hook of the current interface's cost routes: applies the courier faults to a cost form. Returns the response
 * to send instead of pricing (a failing courier, or every courier refusing), or the form to price (the refusing
 * couriers left out), after the slowest courier's delay.
 *
 * @example
 * const faulted = await applyCourierFaults(c, form);
 * if (faulted instanceof Response) return faulted;
 */
export async function applyCourierFaults(
  c: FakeContext,
  form: Record<string, unknown>,
): Promise<Response | Record<string, unknown>> {
  const verdict = await courierFaultsOf(c, form.courier);
  if (verdict === undefined) return form;
  if (verdict.reply !== undefined) {
    return jsonReply(metaError(verdict.reply.status, verdict.reply.message), verdict.reply.status as 500);
  }
  if (verdict.courier === "") return jsonReply(metaError(400, SHIPPING_MESSAGES.costNotFound), 400);
  return { ...form, courier: verdict.courier };
}

/** What the legacy (Pro and Starter) cost routes do under the courier faults: fail, or price with some refusing. */
export type LegacyCourierFaults =
  | { readonly fail: { readonly status: number; readonly message: string } }
  | { readonly refused: ReadonlySet<string> };

/**
 * The hook of the legacy interface's cost routes (Pro `/api/cost`, `/api/v2/internationalCost`, Starter
 * `/starter/cost`), after the slowest courier's delay: a failing courier fails the call (the route wraps the status
 * in `{ rajaongkir: ... }`); a refusing courier stays in the answer with no services (`costs: []`), as the legacy
 * interface answers for a courier that does not serve a route.
 */
export async function legacyCourierFaults(c: FakeContext, courier: unknown): Promise<LegacyCourierFaults> {
  const verdict = await courierFaultsOf(c, courier);
  if (verdict === undefined) return { refused: new Set() };
  if (verdict.reply !== undefined) return { fail: verdict.reply };
  const served = new Set(verdict.courier.split(":").map((code) => code.trim().toLowerCase()));
  const named = String(courier)
    .split(":")
    .map((code) => code.trim().toLowerCase());
  return { refused: new Set(named.filter((code) => !served.has(code))) };
}
