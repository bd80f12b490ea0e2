import { CourierFaults } from "./shipping-faults.js";

/** One injected fault, consumed by the next matching API request. */
export interface FaultSpec {
  /** Path to match: exact pathname (`/api/v1/calculate/domestic-cost`) or a RegExp. Omit to match any request. */
  path?: string | RegExp;
  /** HTTP method to match (any when omitted). */
  method?: string;
  /** Answer with this status (and the service's error envelope) instead of handling the request. */
  status?: number;
  /** Body message for `status`. */
  message?: string;
  /** Extra headers for `status` (e.g. `Retry-After`). */
  headers?: Record<string, string>;
  /** Fail at the network level: in-process `fetch` rejects like undici does, a server drops the connection. */
  networkError?: boolean;
  /** Wait this many real milliseconds first (combine with `status`, or alone to only slow the request down). */
  delayMs?: number;
  /** How many matching requests this fault applies to. Default 1. */
  times?: number;
}

interface ArmedFault extends FaultSpec {
  remaining: number;
}

/** Queue of faults the next requests consume, first armed first used; also holds the per-courier faults. */
export class FaultQueue {
  #faults: ArmedFault[] = [];
  /** Faults of single couriers in the shipping cost calls (see `setCourierFault`). */
  readonly couriers = new CourierFaults();

  /** Arms a fault. */
  add(spec: FaultSpec): void {
    if (spec.status === undefined && !spec.networkError && spec.delayMs === undefined) {
      throw new TypeError("failNext() needs status, networkError or delayMs");
    }
    this.#faults.push({ ...spec, remaining: spec.times ?? 1 });
  }

  /** Takes the first fault matching this request, if any. */
  take(method: string, pathname: string): FaultSpec | undefined {
    const index = this.#faults.findIndex(
      (fault) =>
        (fault.method === undefined || fault.method.toUpperCase() === method.toUpperCase()) &&
        (fault.path === undefined ||
          (typeof fault.path === "string" ? fault.path === pathname : fault.path.test(pathname))),
    );
    const fault = this.#faults[index];
    if (!fault) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) this.#faults.splice(index, 1);
    return fault;
  }

  /** Faults still armed. */
  get pending(): number {
    return this.#faults.length;
  }

  /** Disarms everything, the courier faults included. */
  clear(): void {
    this.#faults = [];
    this.couriers.clear();
  }
}
