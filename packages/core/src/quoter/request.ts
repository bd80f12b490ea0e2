import { RequestValidationError, type ValidationIssue } from "../errors/validation.js";
import type { CostOperation } from "./operations.js";

/**
 * A quote's input: the cost operation's own fields without `courier` (e.g. `{ origin, destination, weight, price? }`
 * on the current interface, plus `originType`/`destinationType` on Pro), and optionally the couriers to price (a
 * subset of the quoter's, default all) and a budget for this quote.
 *
 * @example
 * const request: QuoteRequest<{ origin: number; destination: number; weight: number }> =
 *   { origin: 31555, destination: 68423, weight: 1200, couriers: ["jne"], budgetMs: 500 };
 */
export type QuoteRequest<I> = I & {
  /** Couriers to price: some of the quoter's, each once. Default: all of them. */
  couriers?: readonly string[];
  /** Time this quote may take, in ms (1 to 60,000). Default: the quoter's `budgetMs`. */
  budgetMs?: number;
};

/** A quote's input once checked. */
export interface ReadQuote {
  couriers: readonly string[];
  budgetMs: number;
  origin: string | number;
  destination: string | number;
  weight: number;
  /** The fields beyond origin, destination and weight (price, types, dimensions...). */
  extras: Readonly<Record<string, unknown>>;
  /** The extras, canonical (sorted, JSON values): part of the route key. */
  extrasKey: string;
}

const ROUTE_FIELDS = new Set(["origin", "destination", "weight", "couriers", "budgetMs"]);
const NO_EXTRAS: Readonly<Record<string, unknown>> = Object.freeze({});
const VALID_EXTRAS_KEPT = 1_000;

// An id as the cost forms take it: a positive integer, or a non-empty string without whitespace (ids read back
// from responses as strings are accepted as they are).
const validId = (value: unknown): value is string | number =>
  typeof value === "number"
    ? Number.isInteger(value) && value > 0
    : typeof value === "string" && value.trim() !== "" && !/\s/.test(value.trim());

/**
 * An id as it appears in a route key: numbers as they are, strings trimmed (`501` and `"501"` are the same id on the
 * wire, so they share a key).
 *
 * @example
 * idText(" 501 "); // "501"
 */
export const idText = (id: string | number): string | number => (typeof id === "number" ? id : id.trim());

/**
 * The operation's input of a checked quote, without `courier`: what the provider is sent.
 *
 * @example
 * inputOf(read); // { origin: 31555, destination: 68423, weight: 1200, price: "lowest" }
 */
export function inputOf(read: ReadQuote): Record<string, unknown> {
  return Object.assign({ origin: read.origin, destination: read.destination, weight: read.weight }, read.extras);
}

/**
 * Checks quote inputs by hand (a cache hit must cost next to nothing), and the operation's other fields once per
 * distinct value with the client's own schema, so bad input is refused before the cache or the provider is asked.
 */
export class QuoteRequestReader {
  readonly #couriers: readonly string[];
  readonly #known: ReadonlySet<string>;
  readonly #budgetMs: number;
  readonly #operation: CostOperation;
  readonly #validExtras = new Set<string>();

  constructor(couriers: readonly string[], budgetMs: number, operation: CostOperation) {
    this.#couriers = couriers;
    this.#known = new Set(couriers);
    this.#budgetMs = budgetMs;
    this.#operation = operation;
  }

  /**
   * The checked quote, or a {@link RequestValidationError} listing every problem (operation `"quote"`).
   *
   * @example
   * reader.read({ origin: 1, destination: 2, weight: 0 }); // throws: weight must be an integer number of grams above 0
   */
  read(request: unknown): ReadQuote {
    if (typeof request !== "object" || request === null || Array.isArray(request)) {
      throw new RequestValidationError(
        [{ path: "", message: "a quote takes an object such as { origin, destination, weight }" }],
        "quote",
      );
    }
    const given = request as Record<string, unknown>;
    const { origin, destination, weight } = given;
    const budgetMs = given.budgetMs === undefined ? this.#budgetMs : given.budgetMs;
    const chosen = given.couriers;
    const valid =
      validId(origin) &&
      validId(destination) &&
      typeof weight === "number" &&
      Number.isInteger(weight) &&
      weight > 0 &&
      typeof budgetMs === "number" &&
      Number.isInteger(budgetMs) &&
      budgetMs >= 1 &&
      budgetMs <= 60_000;
    const couriers = chosen === undefined ? this.#couriers : this.#subset(chosen);
    if (!valid || couriers === undefined) throw this.#invalid(given, budgetMs);
    let extrasKey = "";
    let extras = NO_EXTRAS;
    for (const name in given) {
      if (!ROUTE_FIELDS.has(name) && given[name] !== undefined) {
        ({ extras, extrasKey } = this.#extras(given));
        break;
      }
    }
    if (extrasKey !== "" && !this.#validExtras.has(extrasKey)) {
      this.#checkExtras({ origin, destination, weight, ...extras }, couriers, extrasKey);
    }
    return {
      couriers,
      budgetMs,
      origin,
      destination,
      weight,
      extras,
      extrasKey,
    };
  }

  // The fields beyond the route's, sorted by name, and their canonical text.
  #extras(given: Record<string, unknown>): { extras: Record<string, unknown>; extrasKey: string } {
    const extras: Record<string, unknown> = {};
    let extrasKey = "";
    for (const name of Object.keys(given).sort()) {
      const value = given[name];
      if (ROUTE_FIELDS.has(name) || value === undefined) continue;
      extras[name] = value;
      extrasKey += `${extrasKey === "" ? "" : "&"}${name}=${JSON.stringify(value)}`;
    }
    return { extras, extrasKey };
  }

  // Every problem of an invalid quote at once (the slow path: only when something is wrong).
  #invalid(given: Record<string, unknown>, budgetMs: unknown): RequestValidationError {
    const issues: ValidationIssue[] = [];
    const { origin, destination, weight } = given;
    const idProblem = "must be a positive integer id or an id without whitespace";
    if (!validId(origin)) issues.push({ path: "origin", message: idProblem });
    if (!validId(destination)) issues.push({ path: "destination", message: idProblem });
    if (typeof weight !== "number" || !Number.isInteger(weight) || weight <= 0) {
      issues.push({ path: "weight", message: "must be an integer number of grams above 0" });
    }
    if (given.couriers !== undefined) issues.push(...this.#courierIssues(given.couriers));
    if (typeof budgetMs !== "number" || !Number.isInteger(budgetMs) || budgetMs < 1 || budgetMs > 60_000) {
      issues.push({ path: "budgetMs", message: "must be an integer number of milliseconds from 1 to 60000" });
    }
    return new RequestValidationError(issues, "quote");
  }

  // The chosen couriers, normalised; `undefined` when one is unknown or listed twice (see #courierIssues).
  #subset(list: unknown): string[] | undefined {
    if (!Array.isArray(list) || list.length === 0) return undefined;
    const chosen: string[] = [];
    for (const raw of list) {
      const code = typeof raw === "string" ? raw.trim().toLowerCase() : "";
      if (!this.#known.has(code) || chosen.includes(code)) return undefined;
      chosen.push(code);
    }
    return chosen;
  }

  #courierIssues(list: unknown): ValidationIssue[] {
    if (!Array.isArray(list) || list.length === 0) {
      return [{ path: "couriers", message: "must be a non-empty list of the quoter's courier codes" }];
    }
    const issues: ValidationIssue[] = [];
    const chosen: string[] = [];
    list.forEach((raw, index) => {
      const code = typeof raw === "string" ? raw.trim().toLowerCase() : "";
      if (!this.#known.has(code)) {
        issues.push({
          path: `couriers.${index}`,
          message: `unknown courier ${JSON.stringify(typeof raw === "string" ? raw : String(raw))}: this quoter prices ${this.#couriers.join(", ")}`,
        });
      } else if (chosen.includes(code)) {
        issues.push({ path: `couriers.${index}`, message: `courier "${code}" is listed twice` });
      } else {
        chosen.push(code);
      }
    });
    return issues;
  }

  // The operation's own fields (price, origin/destination types, dimensions...) through the client's schema, as one
  // courier would be sent: refused here, before any call, rather than as a failed courier.
  #checkExtras(input: Record<string, unknown>, couriers: readonly string[], extrasKey: string): void {
    const result = this.#operation.schema.safeParse({ ...input, courier: couriers[0] });
    if (!result.success) {
      throw new RequestValidationError(
        result.error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message })),
        "quote",
      );
    }
    if (this.#validExtras.size >= VALID_EXTRAS_KEPT) this.#validExtras.clear();
    this.#validExtras.add(extrasKey);
  }
}
