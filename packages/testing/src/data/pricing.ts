import { type Courier, type CourierService, DOMESTIC_COURIERS, INTERNATIONAL_COURIERS } from "./couriers.js";
import type { Country } from "./international.js";
import type { City } from "./regions.js";

/** One priced option: a courier service on a route for a weight. */
export interface PricedOption {
  courier: Courier;
  service: CourierService;
  /** Integer rupiah. */
  cost: number;
  etdMinDays: number;
  etdMaxDays: number;
}

const EARTH_RADIUS_KM = 6371;
const SAME_CITY_KM = 8;

/** Great-circle distance between two cities, in km (8 km within one city). */
export function distanceKm(a: City, b: City): number {
  if (a.id === b.id) return SAME_CITY_KM;
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return Math.max(SAME_CITY_KM, 2 * EARTH_RADIUS_KM * Math.asin(Math.sqrt(h)));
}

/** Chargeable kilograms: grams rounded up to whole kilograms, at least 1. */
export function chargeableKg(weightGrams: number): number {
  return Math.max(1, Math.ceil(weightGrams / 1000));
}

function price(service: CourierService, km: number, weightGrams: number): Omit<PricedOption, "courier"> {
  const perKg = Math.round((service.basePerKg + service.perKgPerKm * km) / 500) * 500;
  const etdMinDays = Math.max(1, service.handlingDays + Math.ceil(km / service.kmPerDay));
  const etdMaxDays = service.kmPerDay >= 5000 ? etdMinDays : etdMinDays + 1;
  return { service, cost: perKg * chargeableKg(weightGrams), etdMinDays, etdMaxDays };
}

/**
 * Domestic options of the requested couriers between two cities, in courier order. A courier that does not serve
 * both islands contributes nothing, which is how the fake produces "no courier serves this route".
 */
export function domesticOptions(
  origin: City,
  destination: City,
  weightGrams: number,
  couriers: Courier[],
): PricedOption[] {
  const km = distanceKm(origin, destination);
  return couriers
    .filter((courier) => courier.islands.includes(origin.island) && courier.islands.includes(destination.island))
    .flatMap((courier) => courier.services.map((service) => ({ courier, ...price(service, km, weightGrams) })));
}

/** International options of the requested couriers to a country (the origin city does not change the price). */
export function internationalOptions(country: Country, weightGrams: number, couriers: Courier[]): PricedOption[] {
  return couriers.flatMap((courier) =>
    courier.services.map((service) => ({ courier, ...price(service, country.distanceKm, weightGrams) })),
  );
}

/**
 * Splits a `:`-joined courier list and resolves each code; `unknown` lists the codes the list does not know.
 *
 * @example
 * resolveCouriers("jne:sicepat").known.map((c) => c.code); // ["jne", "sicepat"]
 */
export function resolveCouriers(
  joined: string,
  list: readonly Courier[] = DOMESTIC_COURIERS,
): { known: Courier[]; unknown: string[] } {
  const codes = joined
    .split(":")
    .map((code) => code.trim().toLowerCase())
    .filter(Boolean);
  const known: Courier[] = [];
  const unknown: string[] = [];
  for (const code of codes) {
    const courier = list.find((c) => c.code === code);
    if (courier) known.push(courier);
    else unknown.push(code);
  }
  return { known, unknown };
}

/** The international courier list, re-exported for the routes. */
export const INTERNATIONAL = INTERNATIONAL_COURIERS;

/** Rupiah per US dollar the fake's currency endpoint reports. */
export const USD_RATE_IDR = 16250;
