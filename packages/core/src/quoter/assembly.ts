import type { BackupLookup } from "./backup.js";
import type { Flight } from "./flight.js";
import type { ReadQuote } from "./request.js";
import type { CourierRates, MissingCourier, RateEntry, RateQuote } from "./types.js";

/** What a quote does for one courier: answer from the cache, ask the provider, or neither (it is cooling down). */
export interface Plan {
  entry: RateEntry | undefined;
  /** The entry may be served as it is. */
  serve: boolean;
  /** Served entry past its fresh window (revalidated in the background). */
  stale: boolean;
  /** An entry to serve only if the provider fails or is late (stale-if-error). */
  fallback: RateEntry | undefined;
  /** The courier is cooling down after a failure: not asked, with this error. */
  cooling: { error: unknown } | undefined;
  flight: Flight | undefined;
}

/** A quote and what it counted. */
export interface Assembled {
  quote: RateQuote;
  backups: number;
  staleIfError: number;
}

function entryAnswer(courier: string, entry: RateEntry, source: "cache" | "provider", stale: boolean) {
  return entry.options.length === 0
    ? { missing: { courier, reason: "not_served" as const, fetchedAt: entry.fetchedAt } }
    : { rates: { courier, options: entry.options, source, fetchedAt: entry.fetchedAt, stale } };
}

/**
 * A quote of answers that are all fresh (the hit path), with the oldest one's fetch time.
 *
 * @example
 * const { quote, oldest } = freshQuote(read.couriers, entries, now);
 */
export function freshQuote(couriers: readonly string[], entries: readonly (RateEntry | undefined)[], now: number) {
  const rates: CourierRates[] = [];
  const missing: MissingCourier[] = [];
  let oldest = now;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as RateEntry;
    const courier = couriers[i] as string;
    if (entry.fetchedAt < oldest) oldest = entry.fetchedAt;
    if (entry.options.length === 0) missing.push({ courier, reason: "not_served", fetchedAt: entry.fetchedAt });
    else rates.push({ courier, options: entry.options, source: "cache", fetchedAt: entry.fetchedAt, stale: false });
  }
  const quote: RateQuote = { rates, missing, complete: true };
  return { quote, oldest };
}

/**
 * The quote of a planned question once the budget ran out (or every flight landed): per courier, the cached or new
 * answer; else the stale price (stale-if-error) when the provider failed or is late; else the backup rate; else the
 * courier is missing, `pending` or `failed`.
 *
 * @example
 * const { quote, backups, staleIfError } = plannedQuote(read, plans, backup);
 */
export function plannedQuote(read: ReadQuote, plans: readonly Plan[], backup: BackupLookup | undefined): Assembled {
  const rates: CourierRates[] = [];
  const missing: MissingCourier[] = [];
  let complete = true;
  let backups = 0;
  let staleIfError = 0;
  for (let i = 0; i < plans.length; i++) {
    const plan = plans[i] as Plan;
    const courier = read.couriers[i] as string;
    const outcome = plan.flight?.outcome;
    const answered = plan.serve ? plan.entry : outcome?.kind === "answered" ? outcome.entry : undefined;
    const served =
      answered !== undefined
        ? entryAnswer(courier, answered, plan.serve ? "cache" : "provider", plan.stale)
        : plan.fallback !== undefined
          ? entryAnswer(courier, plan.fallback, "cache", true)
          : undefined;
    if (served !== undefined) {
      if (answered === undefined) staleIfError += 1;
      if (served.rates !== undefined) rates.push(served.rates);
      else missing.push(served.missing);
      continue;
    }
    complete = false;
    const error = outcome?.kind === "failed" ? outcome.error : plan.cooling?.error;
    const reason = error === undefined ? "pending" : "failed";
    const options = backup?.(read, courier);
    if (options !== undefined) {
      backups += 1;
      rates.push({ courier, options, source: "backup", fetchedAt: undefined, stale: false, backupReason: reason });
    } else {
      missing.push(error === undefined ? { courier, reason } : { courier, reason, error });
    }
  }
  return { quote: { rates, missing, complete }, backups, staleIfError };
}
