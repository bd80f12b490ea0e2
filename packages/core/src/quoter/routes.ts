import { ConfigurationError } from "../errors/validation.js";
import { idText, type ReadQuote } from "./request.js";
import { type BilledWeight, exactWeight } from "./weight.js";

/** The couriers of a quote that share one route key (all of them, unless the billed weight tells them apart). */
export interface RouteGroup {
  route: string;
  couriers: readonly string[];
  /** Their positions in the quote; `undefined` when the group is the whole quote. */
  indexes: readonly number[] | undefined;
}

/**
 * A route key: account and operation (the prefix), origin, destination, other input fields, billed weight. Origin
 * and destination never hold whitespace, so the fields cannot run into each other; the key ends with the weight's
 * digits (a Redis lock key appends to it).
 *
 * @example
 * routeKey("3f2a9c0d1e4b5a67 cd ", read, 1000); // "3f2a9c0d1e4b5a67 cd 31555 68423  1000"
 */
export function routeKey(prefix: string, read: ReadQuote, weight: number): string {
  return `${prefix}${idText(read.origin)} ${idText(read.destination)} ${read.extrasKey} ${weight}`;
}

/**
 * The couriers grouped by route key under the billed-weight rule: `undefined` with the default rule, where every
 * courier shares the quote's own weight (the hit path: nothing allocated), else one group per billed weight.
 *
 * @example
 * routeGroups(prefix, read, perKilogramWeight()); // [{ route: "... 2000", couriers: ["jne", "pos"], indexes: [0, 1] }]
 */
export function routeGroups(prefix: string, read: ReadQuote, billed: BilledWeight): RouteGroup[] | undefined {
  if (billed === exactWeight) return undefined;
  const groups = new Map<string, RouteGroup & { couriers: string[]; indexes: number[] }>();
  read.couriers.forEach((courier, index) => {
    const weight = billed(read.weight, courier);
    if (typeof weight !== "number" || !Number.isFinite(weight) || weight <= 0) {
      throw new ConfigurationError("cache.billedWeight", "cache.billedWeight must return a positive number of grams");
    }
    const route = routeKey(prefix, read, weight);
    let group = groups.get(route);
    if (group === undefined) {
      group = { route, couriers: [], indexes: [] };
      groups.set(route, group);
    }
    group.couriers.push(courier);
    group.indexes.push(index);
  });
  return [...groups.values()];
}
