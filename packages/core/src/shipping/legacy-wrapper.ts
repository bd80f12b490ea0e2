import { z } from "zod";
import { ConfigurationError } from "../errors/validation.js";
import type { CredentialSpec } from "../http/transport.js";
import { mapShippingError } from "./error-mapping.js";

/**
 * Where the Pro/Starter keys travel. The spec says these interfaces accept `key`, `android-key` and `ios-key`
 * "as GET/HEAD or POST/HEAD parameters"; kirimbayar sends them as HTTP headers by default (they stay out of URLs and
 * access logs), and `"param"` sends them as query parameters (GET) or form fields (POST) instead.
 */
export type KeyPlacement = "header" | "param";

/** The key options of the Pro/Starter clients. */
export interface LegacyKeyOptions {
  apiKey: string;
  /** Sent as `android-key` when an Android referrer restriction is enabled on the account. */
  androidKey?: string;
  /** Sent as `ios-key` when an iOS referrer restriction is enabled on the account. */
  iosKey?: string;
  /** `"header"` (default) or `"param"`. */
  keyPlacement?: KeyPlacement;
}

/**
 * The credential list of a Pro/Starter client.
 *
 * @example
 * new Transport(options, legacyCredentials(options));
 */
export function legacyCredentials(options: LegacyKeyOptions): CredentialSpec[] {
  const placement = options?.keyPlacement ?? "header";
  if (placement !== "header" && placement !== "param") {
    throw new ConfigurationError("keyPlacement", 'keyPlacement must be "header" or "param"');
  }
  return [
    { in: placement, name: "key", option: "apiKey", value: options?.apiKey },
    { in: placement, name: "android-key", option: "androidKey", value: options?.androidKey, optional: true },
    { in: placement, name: "ios-key", option: "iosKey", value: options?.iosKey, optional: true },
  ];
}

/**
 * Reads `results` of the `rajaongkir` wrapper as a list: an array as is, a single object (what a lookup by `id`
 * returns) as a one-element list, `null`/absent/`[]` as an empty list.
 *
 * @example
 * resultsList(proProvinceSchema).parse({ results: { province_id: "9" } }); // [{ province_id: "9" }]
 */
export function resultsList<S extends z.ZodType>(record: S) {
  return z
    .looseObject({
      results: z.union([z.array(record), z.null(), z.undefined(), record.transform((one) => [one])]),
    })
    .transform((inner) => (inner.results ?? []) as z.output<S>[]);
}

/**
 * Reads the single record of the `rajaongkir` wrapper, found under `result` (waybill, currency) or `results`.
 *
 * @example
 * singleResult(proCurrencySchema).parse({ result: { value: 16250 } }); // { value: 16250 }
 */
export function singleResult<S extends z.ZodType>(record: S) {
  return z
    .looseObject({ result: z.unknown().optional(), results: z.unknown().optional() })
    .transform((inner) => inner.result ?? inner.results)
    .pipe(record);
}

/**
 * The fields every Pro and Starter operation shares: the `{ rajaongkir: ... }` envelope, the shipping error mapping,
 * and retried as a read (lookups and cost checks change nothing at the provider). Callers add `query`/`body` and
 * `schema` with `Object.assign`, not a spread: V8 takes a far slower path for a spread followed by more properties.
 *
 * @example
 * Object.assign(legacyOperation("listCities", "/starter/city", "GET"), { query, schema });
 */
export function legacyOperation<O extends string>(operation: O, path: string, method: "GET" | "POST") {
  return { operation, method, path, idempotent: true, envelope: "rajaongkir" as const, mapError: mapShippingError };
}
