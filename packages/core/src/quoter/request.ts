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
  /** The operation's input without `courier`. */
  input: Record<string, unknown>;
  /** The fields beyond origin, destination and weight (price, types, dimensions...). */
  extras: Record<string, unknown>;
  /** Origin, destination and extras, canonical: the part of a cache key every courier of the quote shares. */
  route: string;
}

const ROUTE_FIELDS = new Set(["origin", "destination", "weight", "couriers", "budgetMs"]);
const VALID_EXTRAS_KEPT = 1_000;

// An id as the cost forms take it: a positive integer, or a non-empty string without whitespace (ids read back
// from responses as strings are accepted as they are).
const validId = (value: unknown): value is string | number =>
  typeof value === "number"
    ? Number.isInteger(value) && value > 0
    : typeof value === "string" && value.trim() !== "" && !/\s/.test(value.trim());

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
    const issues: ValidationIssue[] = [];
    const { origin, destination, weight } = given;
    if (!validId(origin))
      issues.push({ path: "origin", message: "must be a positive integer id or an id without whitespace" });
    if (!validId(destination)) {
      issues.push({ path: "destination", message: "must be a positive integer id or an id without whitespace" });
    }
    if (typeof weight !== "number" || !Number.isInteger(weight) || weight <= 0) {
      issues.push({ path: "weight", message: "must be an integer number of grams above 0" });
    }
    const couriers = given.couriers === undefined ? this.#couriers : this.#subset(given.couriers, issues);
    const budgetMs = given.budgetMs === undefined ? this.#budgetMs : given.budgetMs;
    if (typeof budgetMs !== "number" || !Number.isInteger(budgetMs) || budgetMs < 1 || budgetMs > 60_000) {
      issues.push({ path: "budgetMs", message: "must be an integer number of milliseconds from 1 to 60000" });
    }
    const input: Record<string, unknown> = { origin, destination, weight };
    const extras: Record<string, unknown> = {};
    let extrasKey = "";
    for (const name of Object.keys(given).sort()) {
      const value = given[name];
      if (ROUTE_FIELDS.has(name) || value === undefined) continue;
      input[name] = value;
      extras[name] = value;
      extrasKey += `${extrasKey === "" ? "" : "&"}${name}=${JSON.stringify(value)}`;
    }
    if (issues.length > 0) throw new RequestValidationError(issues, "quote");
    if (extrasKey !== "" && !this.#validExtras.has(extrasKey)) this.#checkExtras(input, couriers, extrasKey);
    return {
      couriers,
      budgetMs: budgetMs as number,
      origin: origin as string | number,
      destination: destination as string | number,
      weight: weight as number,
      input,
      extras,
      route: `${String(origin).trim()} ${String(destination).trim()} ${extrasKey}`,
    };
  }

  #subset(list: unknown, issues: ValidationIssue[]): string[] {
    if (!Array.isArray(list) || list.length === 0) {
      issues.push({ path: "couriers", message: "must be a non-empty list of the quoter's courier codes" });
      return [];
    }
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
    return chosen;
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
