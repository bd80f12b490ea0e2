import { z } from "zod";
import { COURIER_CODES } from "../helpers/couriers.js";
import { etdTextSchema, knownOrString, openEnum } from "../http/schema-helpers.js";
import {
  amountSchema,
  flagSchema,
  idSchema,
  routeCostFields,
  singleCourierSchema,
  textSchema,
} from "./schema-parts.js";

// ---------------------------------------------------------------------------------------------------------------
// Requests (strict: validated before anything is sent)
// ---------------------------------------------------------------------------------------------------------------

/**
 * Query of a destination search (domestic or international).
 *
 * @example
 * destinationSearchInputSchema.parse({ search: "bandung", limit: 10 });
 */
export const destinationSearchInputSchema = z.strictObject({
  /** City, district, subdistrict or postal code (domestic), or country name (international); partial text works. */
  search: z.string().trim().min(1, "search must not be empty"),
  /** Maximum rows (the provider gives nothing useful above 100). */
  limit: z.int().positive().optional(),
  /** Paging start. */
  offset: z.int().nonnegative().optional(),
});
/** Input of `searchDomesticDestinations` / `searchInternationalDestinations`. */
export type DestinationSearchInput = z.input<typeof destinationSearchInputSchema>;

/**
 * Options of the paging iterators.
 *
 * @example
 * destinationIterateInputSchema.parse({ search: "jakarta", pageSize: 50, maxPages: 4 });
 */
export const destinationIterateInputSchema = z.strictObject({
  search: z.string().trim().min(1, "search must not be empty"),
  /** Rows per request. Default 100. */
  pageSize: z.int().positive().max(1000).optional(),
  /** Stop after this many requests even if pages stay full. Default 50. */
  maxPages: z.int().positive().optional(),
});
/** Input of `iterateDomesticDestinations` / `iterateInternationalDestinations`. */
export type DestinationIterateInput = z.input<typeof destinationIterateInputSchema>;

/**
 * Form of the domestic cost operations (`calculate/domestic-cost` and `calculate/district/domestic-cost`).
 * `courier` may be one code, a `:`-joined string or an array; it is sent joined with `:`.
 *
 * @example
 * domesticCostInputSchema.parse({ origin: 31555, destination: 68423, weight: 1000, courier: ["jne", "pos"] });
 */
export const domesticCostInputSchema = z.strictObject({
  // origin and destination: ids from the domestic destination search.
  ...routeCostFields,
  /** Sort/filter the options: `lowest` or `highest`. */
  price: knownOrString(["lowest", "highest"]).optional(),
});
/** Input of `calculateDomesticCost` / `calculateDistrictDomesticCost`. */
export type DomesticCostInput = z.input<typeof domesticCostInputSchema>;

/**
 * Form of `calculate/international-cost`: origin is a domestic destination id, destination a `country_id`.
 *
 * @example
 * internationalCostInputSchema.parse({ origin: 31555, destination: "108", weight: 500, courier: "pos" });
 */
export const internationalCostInputSchema = domesticCostInputSchema;
/** Input of `calculateInternationalCost`. */
export type InternationalCostInput = z.input<typeof internationalCostInputSchema>;

/**
 * Query of waybill tracking. `last_phone_number` (the last 5 digits of the receiver's phone) is what JNE asks for;
 * it is optional here because other couriers do not need it, but when given it must be exactly 5 digits.
 *
 * @example
 * trackWaybillInputSchema.parse({ awb: "JP1234567890", courier: "jnt" });
 */
export const trackWaybillInputSchema = z.strictObject({
  /** Waybill (air waybill) number. */
  awb: z.string().trim().min(1, "awb must not be empty"),
  /** One courier code. */
  courier: singleCourierSchema,
  /** Last 5 digits of the receiver's phone number (JNE). */
  last_phone_number: z
    .string()
    .trim()
    .regex(/^\d{5}$/, "last_phone_number must be the last 5 digits of the receiver's phone")
    .optional(),
});
/** Input of `trackWaybill` (current interface). */
export type TrackWaybillInput = z.input<typeof trackWaybillInputSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Responses (tolerant: unknown fields kept, ids number or string)
// ---------------------------------------------------------------------------------------------------------------

/**
 * A domestic destination from the search.
 *
 * @example
 * domesticDestinationSchema.parse({ id: 31555, label: "SUKAJADI, SUKAJADI, BANDUNG, JAWA BARAT, 40162" });
 */
export const domesticDestinationSchema = z.looseObject({
  id: idSchema,
  label: z.string().optional(),
  province_name: z.string().optional(),
  city_name: z.string().optional(),
  district_name: z.string().optional(),
  subdistrict_name: z.string().optional(),
  zip_code: textSchema.optional(),
});
/** A domestic destination record. */
export type DomesticDestination = z.infer<typeof domesticDestinationSchema>;

/**
 * A country from the international destination search.
 *
 * @example
 * internationalDestinationSchema.parse({ country_id: "108", country_name: "Malaysia" });
 */
export const internationalDestinationSchema = z.looseObject({
  country_id: idSchema,
  country_name: z.string().optional(),
});
/** An international destination record. */
export type InternationalDestination = z.infer<typeof internationalDestinationSchema>;

/**
 * A province from `destination/province`.
 *
 * @example
 * provinceSchema.parse({ id: 12, name: "JAWA BARAT" });
 */
export const provinceSchema = z.looseObject({ id: idSchema, name: z.string().optional() });
/** A province record of the current interface. */
export type Province = z.infer<typeof provinceSchema>;

/**
 * A city, district or subdistrict from the hierarchy lookups.
 *
 * @example
 * locationSchema.parse({ id: 55, name: "BANDUNG", zip_code: "0" });
 */
export const locationSchema = z.looseObject({
  id: idSchema,
  name: z.string().optional(),
  zip_code: textSchema.optional(),
});
/** A city, district or subdistrict record. */
export type LocationRecord = z.infer<typeof locationSchema>;

/**
 * One courier service with its price. `code` is an open string: responses may use display codes (`J&T`) or
 * couriers that are not in the documented list. `etd` may be empty: read it with `parseEtd`.
 *
 * @example
 * courierCostOptionSchema.parse({ name: "JNE", code: "jne", service: "REG", cost: 18000, etd: "2-3 day" });
 */
export const courierCostOptionSchema = z.looseObject({
  name: z.string().optional(),
  code: openEnum(COURIER_CODES),
  service: z.string(),
  description: z.string().optional(),
  /** Integer rupiah domestically; international options may carry a decimal amount in `currency`. */
  cost: amountSchema,
  etd: etdTextSchema,
  /** Only on international options. */
  currency: z.string().optional(),
});
/** A courier cost option. */
export type CourierCostOption = z.infer<typeof courierCostOptionSchema>;

/**
 * One entry of a waybill's history. Entries are not always in time order: see `sortManifest`.
 *
 * @example
 * manifestEntrySchema.parse({ manifest_code: "1", manifest_description: "Picked up", manifest_date: "2026-01-02" });
 */
export const manifestEntrySchema = z.looseObject({
  manifest_code: textSchema.optional(),
  manifest_description: z.string().optional(),
  manifest_date: z.string().optional(),
  manifest_time: z.string().optional(),
  city_name: z.string().nullish(),
});
/** A waybill history entry. */
export type ManifestEntry = z.infer<typeof manifestEntrySchema>;

/**
 * Waybill status: free text such as `DELIVERED` or `ON PROCESS` (open: any other value is kept).
 *
 * @example
 * waybillStatusSchema.parse("ON TRANSIT"); // "ON TRANSIT"
 */
export const waybillStatusSchema = openEnum(["DELIVERED", "ON PROCESS"]);

/**
 * Waybill tracking result of the current interface (`track/waybill`).
 *
 * @example
 * waybillSchema.parse({ delivered: true, summary: {}, details: {}, delivery_status: { status: "DELIVERED" }, manifest: [] });
 */
export const waybillSchema = z.looseObject({
  delivered: flagSchema.optional(),
  summary: z
    .looseObject({
      courier_code: z.string().optional(),
      courier_name: z.string().optional(),
      waybill_number: z.string().optional(),
      service_code: z.string().optional(),
      waybill_date: z.string().optional(),
      shipper_name: z.string().optional(),
      receiver_name: z.string().optional(),
      origin: z.string().optional(),
      destination: z.string().optional(),
      status: waybillStatusSchema.optional(),
    })
    .nullish(),
  details: z.looseObject({}).nullish(),
  delivery_status: z
    .looseObject({
      status: waybillStatusSchema.optional(),
      pod_receiver: z.string().nullish(),
      pod_date: z.string().nullish(),
      pod_time: z.string().nullish(),
    })
    .nullish(),
  manifest: z
    .array(manifestEntrySchema)
    .nullish()
    .transform((v) => v ?? []),
});
/** A tracked waybill. */
export type Waybill = z.infer<typeof waybillSchema>;

/**
 * Orders manifest entries by date and time, oldest first (the provider does not guarantee an order). Entries
 * without a date keep their relative order at the end.
 *
 * @example
 * sortManifest(waybill.manifest).at(-1)?.manifest_description; // latest event
 */
export function sortManifest<T extends { manifest_date?: string | undefined; manifest_time?: string | undefined }>(
  entries: readonly T[],
): T[] {
  const key = (e: T) => (e.manifest_date ? `${e.manifest_date} ${e.manifest_time ?? ""}`.trim() : undefined);
  return entries
    .map((entry, index) => ({ entry, index, at: key(entry) }))
    .sort((a, b) => {
      if (a.at === undefined || b.at === undefined) return a.at === b.at ? a.index - b.index : a.at ? -1 : 1;
      return a.at < b.at ? -1 : a.at > b.at ? 1 : a.index - b.index;
    })
    .map(({ entry }) => entry);
}
