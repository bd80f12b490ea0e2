import { type ParsedEtd, parseEtd } from "@kirimbayar/core";
import type { MissingReason, RateQuote, RateSource } from "@kirimbayar/core/quoter";

/** A courier cost option as the shipping service returns it (wire names), and where the quote got it. */
export interface CostOption {
  name: string;
  code: string;
  service: string;
  description?: string | undefined;
  cost: number;
  etd: string;
  /** `provider` (asked now), `cache`, or `backup` (the shop's backup rate). Default `provider`. */
  source?: RateSource;
  /** When the provider gave the price (ISO 8601); `null` for a backup rate. */
  fetched_at?: string | null;
  /** Served past its fresh window. */
  stale?: boolean;
}

/** One option of a quote shown to the buyer: the provider's fields, the parsed ETD, the two badges, its source. */
export interface QuoteOption {
  courier_code: string;
  courier_name: string;
  service: string;
  description: string;
  cost: number;
  etd: ParsedEtd;
  cheapest: boolean;
  fastest: boolean;
  source: RateSource;
  fetched_at: string | null;
  stale: boolean;
}

/** A courier the quote has no price for, and why (`pending`, `not_served`, `failed`). */
export interface MissingQuote {
  courier_code: string;
  reason: MissingReason;
}

/** What `POST /shipping/quote` answers: the ranked options and the couriers without one. */
export interface ShippingQuoteView {
  options: QuoteOption[];
  missing: MissingQuote[];
}

const HOURS_PER_UNIT = { hour: 1, day: 24, week: 24 * 7 } as const;

/** Worst-case delivery time in hours, or `undefined` when the courier gave no usable ETD. */
function worstCaseHours(etd: ParsedEtd): number | undefined {
  return etd.max === null || etd.unit === null ? undefined : etd.max * HOURS_PER_UNIT[etd.unit];
}

/**
 * Turns cost options into a quote sorted by price, marking the cheapest option and the fastest one (smallest
 * worst-case ETD; ties go to the cheaper). Options without a usable ETD can be cheapest but never fastest, and a
 * backup rate (the shop's own guess, not a courier's price) is never either.
 *
 * @example
 * const quote = rankCostOptions([{ name: "JNE", code: "jne", service: "REG", cost: 18000, etd: "2-3 day" }]);
 * quote[0]; // { ..., etd: { min: 2, max: 3, unit: "day", raw: "2-3 day" }, cheapest: true, fastest: true }
 */
export function rankCostOptions(options: readonly CostOption[]): QuoteOption[] {
  const quote = options
    .map(
      (option): QuoteOption => ({
        courier_code: option.code,
        courier_name: option.name,
        service: option.service,
        description: option.description ?? "",
        cost: option.cost,
        etd: parseEtd(option.etd),
        cheapest: false,
        fastest: false,
        source: option.source ?? "provider",
        fetched_at: option.fetched_at ?? null,
        stale: option.stale ?? false,
      }),
    )
    .sort((a, b) => a.cost - b.cost || a.courier_code.localeCompare(b.courier_code));

  const priced = quote.filter((option) => option.source !== "backup");
  const cheapest = priced[0];
  if (cheapest !== undefined) cheapest.cheapest = true;

  let fastest: { option: QuoteOption; hours: number } | undefined;
  for (const option of priced) {
    const hours = worstCaseHours(option.etd);
    // Strictly faster only: `quote` is sorted by cost, so on a tie the cheaper option stays.
    if (hours !== undefined && (fastest === undefined || hours < fastest.hours)) fastest = { option, hours };
  }
  if (fastest !== undefined) fastest.option.fastest = true;
  return quote;
}

/**
 * The buyer's view of a rate quote: every option of every courier with a price (the provider's, a cached one, or the
 * shop's backup rate, each saying which), ranked by {@link rankCostOptions}, and the couriers without one.
 *
 * @example
 * const { options, missing } = quoteView(await quoter.quote({ origin, destination, weight }));
 */
export function quoteView(quote: RateQuote): ShippingQuoteView {
  const options = quote.rates.flatMap((rates) =>
    rates.options.map(
      (option): CostOption => ({
        name: option.name ?? option.code,
        code: option.code,
        service: option.service,
        description: option.description,
        cost: option.cost,
        etd: option.etd,
        source: rates.source,
        fetched_at: rates.fetchedAt === undefined ? null : new Date(rates.fetchedAt).toISOString(),
        stale: rates.stale,
      }),
    ),
  );
  return {
    options: rankCostOptions(options),
    missing: quote.missing.map((missing) => ({ courier_code: missing.courier, reason: missing.reason })),
  };
}
