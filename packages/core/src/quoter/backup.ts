import { ConfigurationError } from "../errors/validation.js";
import type { RateOption } from "./types.js";

/**
 * A price the shop sets for a courier that has no price in time, so the checkout never shows "no rates". Shown as
 * a backup rate (`source: "backup"`); charge it or re-quote at order time, as the shop decides.
 *
 * @example
 * const rate: BackupRate = { cost: 25_000, service: "REG", etd: "2-5 day" };
 */
export interface BackupRate {
  /** Integer rupiah. */
  cost: number;
  /** Default `"BACKUP"`. */
  service?: string;
  /** Default `"Backup rate"`. */
  description?: string;
  /** Default `""` (no estimate). */
  etd?: string;
}

/** The route a backup rate is looked up for. */
export interface BackupRoute {
  origin: string | number;
  destination: string | number;
  weight: number;
}

/**
 * The shop's backup rates: one `flat` rate for any courier and destination, rates `byDestination` (keyed by the
 * destination id as a string; falls back to `flat`), or a function of the route and the courier (return `undefined`
 * for none; a rate it returns with a cost that is not a positive integer is ignored, never shown).
 *
 * @example
 * const backup: BackupRates = { flat: { cost: 30_000 }, byDestination: { "68423": { cost: 18_000, etd: "2-3 day" } } };
 * const perWeight: BackupRates = (route) => ({ cost: 10_000 * Math.ceil(route.weight / 1000) });
 */
export type BackupRates =
  | { flat?: BackupRate; byDestination?: Readonly<Record<string, BackupRate>> }
  | ((route: BackupRoute, courier: string) => BackupRate | undefined);

/** Finds the backup options of a courier on a route, or `undefined` when the shop set none. */
export type BackupLookup = (route: BackupRoute, courier: string) => RateOption[] | undefined;

const validCost = (rate: BackupRate | undefined): rate is BackupRate =>
  rate !== undefined && Number.isInteger(rate.cost) && rate.cost > 0;

function checked(rate: BackupRate, where: string): BackupRate {
  if (typeof rate !== "object" || rate === null || !validCost(rate)) {
    throw new ConfigurationError(where, `${where}.cost must be a positive integer number of rupiah`);
  }
  return rate;
}

function asOption(rate: BackupRate, courier: string): RateOption[] {
  return [
    {
      courier,
      code: courier,
      name: undefined,
      service: rate.service ?? "BACKUP",
      description: rate.description ?? "Backup rate",
      cost: rate.cost,
      etd: rate.etd ?? "",
    },
  ];
}

/**
 * Checks the `backup` option once, when the quoter is built, and turns it into a lookup.
 *
 * @example
 * backupLookup({ flat: { cost: 30_000 } })?.({ origin: 1, destination: 2, weight: 1000 }, "jne"); // [{ cost: 30000, ... }]
 */
export function backupLookup(option: BackupRates | undefined): BackupLookup | undefined {
  if (option === undefined) return undefined;
  if (typeof option === "function") {
    return (route, courier) => {
      const rate = option(route, courier);
      return validCost(rate) ? asOption(rate, courier) : undefined;
    };
  }
  if (typeof option !== "object" || option === null) {
    throw new ConfigurationError("backup", "backup must be { flat, byDestination } or a function");
  }
  const flat = option.flat === undefined ? undefined : checked(option.flat, "backup.flat");
  const byDestination = new Map<string, BackupRate>();
  for (const [destination, rate] of Object.entries(option.byDestination ?? {})) {
    byDestination.set(destination, checked(rate, `backup.byDestination.${destination}`));
  }
  return (route, courier) => {
    const rate = byDestination.get(String(route.destination).trim()) ?? flat;
    return rate === undefined ? undefined : asOption(rate, courier);
  };
}
