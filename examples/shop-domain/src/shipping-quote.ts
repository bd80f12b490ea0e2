import { type ParsedEtd, parseEtd } from "@kirimbayar/core";

/** A courier cost option as the shipping service returns it (wire names). */
export interface CostOption {
  name: string;
  code: string;
  service: string;
  description?: string | undefined;
  cost: number;
  etd: string;
}

/** One option of a quote shown to the buyer: the provider's fields, the parsed ETD and the two badges. */
export interface QuoteOption {
  courier_code: string;
  courier_name: string;
  service: string;
  description: string;
  cost: number;
  etd: ParsedEtd;
  cheapest: boolean;
  fastest: boolean;
}

const HOURS_PER_UNIT = { hour: 1, day: 24, week: 24 * 7 } as const;

/** Worst-case delivery time in hours, or `undefined` when the courier gave no usable ETD. */
function worstCaseHours(etd: ParsedEtd): number | undefined {
  return etd.max === null || etd.unit === null ? undefined : etd.max * HOURS_PER_UNIT[etd.unit];
}

/**
 * Turns cost options into a quote sorted by price, marking the cheapest option and the fastest one (smallest
 * worst-case ETD; ties go to the cheaper). Options without a usable ETD can be cheapest but never fastest.
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
      }),
    )
    .sort((a, b) => a.cost - b.cost || a.courier_code.localeCompare(b.courier_code));

  const cheapest = quote[0];
  if (cheapest !== undefined) cheapest.cheapest = true;

  let fastest: { option: QuoteOption; hours: number } | undefined;
  for (const option of quote) {
    const hours = worstCaseHours(option.etd);
    // Strictly faster only: `quote` is sorted by cost, so on a tie the cheaper option stays.
    if (hours !== undefined && (fastest === undefined || hours < fastest.hours)) fastest = { option, hours };
  }
  if (fastest !== undefined) fastest.option.fastest = true;
  return quote;
}
