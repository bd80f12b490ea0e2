import { z } from "zod";
import { COURIER_CODES } from "../helpers/couriers.js";
import { etdTextSchema, knownOrString, openEnum } from "../http/schema-helpers.js";
import { waybillStatusSchema } from "./current-schemas.js";
import {
  amountSchema,
  courierListSchema,
  flagSchema,
  idInputSchema,
  idSchema,
  routeCostFields,
  singleCourierSchema,
  textSchema,
  weightSchema,
} from "./schema-parts.js";

// ---------------------------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------------------------

/**
 * `{ id? }` filter of the province lookup (Pro and Starter). Without `id`, every province.
 *
 * @example
 * provinceQueryInputSchema.parse({ id: "9" });
 */
export const provinceQueryInputSchema = z.strictObject({ id: idInputSchema.optional() });
/** Input of `listProvinces` (Pro/Starter). */
export type ProvinceQueryInput = z.input<typeof provinceQueryInputSchema>;

/**
 * `{ id?, province? }` filter of the city lookup (Pro and Starter). Without both, every city.
 *
 * @example
 * cityQueryInputSchema.parse({ province: 9 });
 */
export const cityQueryInputSchema = z.strictObject({
  id: idInputSchema.optional(),
  province: idInputSchema.optional(),
});
/** Input of `listCities` (Pro/Starter). */
export type CityQueryInput = z.input<typeof cityQueryInputSchema>;

/**
 * `{ city, id? }` of the Pro subdistrict lookup.
 *
 * @example
 * subdistrictQueryInputSchema.parse({ city: "23" });
 */
export const subdistrictQueryInputSchema = z.strictObject({ city: idInputSchema, id: idInputSchema.optional() });
/** Input of `ShippingProClient.listSubdistricts`. */
export type SubdistrictQueryInput = z.input<typeof subdistrictQueryInputSchema>;

const locationTypeSchema = knownOrString(["city", "subdistrict"]);
const dimensionSchema = z.number().positive("must be above 0");

/**
 * Form of the Pro cost (`POST /api/cost`). Dimensions (cm) are accepted only with exactly one courier, as the
 * provider computes dimension-based cost for one courier only.
 *
 * @example
 * proCostInputSchema.parse({ origin: "501", originType: "city", destination: "574", destinationType: "subdistrict",
 *   weight: 1700, courier: "jne" });
 */
export const proCostInputSchema = z
  .strictObject({
    origin: idInputSchema,
    originType: locationTypeSchema,
    destination: idInputSchema,
    destinationType: locationTypeSchema,
    weight: weightSchema,
    courier: courierListSchema,
    length: dimensionSchema.optional(),
    width: dimensionSchema.optional(),
    height: dimensionSchema.optional(),
    diameter: dimensionSchema.optional(),
  })
  .superRefine((input, ctx) => {
    const dimensions = (["length", "width", "height", "diameter"] as const).filter((d) => input[d] !== undefined);
    if (dimensions.length > 0 && input.courier.includes(":")) {
      for (const dimension of dimensions) {
        ctx.addIssue({
          code: "custom",
          path: [dimension],
          message: "dimensions apply to exactly one courier; send a single courier code",
        });
      }
    }
  });
/** Input of `ShippingProClient.calculateCost`. */
export type ProCostInput = z.input<typeof proCostInputSchema>;

/**
 * `{ id?, province? }` of the Pro international origin lookup.
 *
 * @example
 * internationalOriginQueryInputSchema.parse({ province: "6" });
 */
export const internationalOriginQueryInputSchema = cityQueryInputSchema;
/** Input of `listInternationalOrigins`. */
export type InternationalOriginQueryInput = z.input<typeof internationalOriginQueryInputSchema>;

/**
 * `{ id? }` of the Pro international destination lookup (a country id; without it, every country).
 *
 * @example
 * internationalDestinationQueryInputSchema.parse({ id: "108" });
 */
export const internationalDestinationQueryInputSchema = z.strictObject({ id: idInputSchema.optional() });
/** Input of `ShippingProClient.listInternationalDestinations`. */
export type InternationalDestinationQueryInput = z.input<typeof internationalDestinationQueryInputSchema>;

/**
 * Form of the Pro international cost: origin is a city id, destination a country id.
 *
 * @example
 * proInternationalCostInputSchema.parse({ origin: "152", destination: "108", weight: 1400, courier: "pos:tiki" });
 */
export const proInternationalCostInputSchema = z.strictObject(routeCostFields);
/** Input of `ShippingProClient.calculateInternationalCost`. */
export type ProInternationalCostInput = z.input<typeof proInternationalCostInputSchema>;

/**
 * Form of Pro waybill tracking. `courier` is one code; `PRO_WAYBILL_COURIER_CODES` lists the known ones, but the
 * provider's own example tracks a JNE waybill, so any code is sent and the provider decides (FIELD-NOTES).
 *
 * @example
 * proWaybillInputSchema.parse({ waybill: "SOCAG00183235715", courier: "jnt" });
 */
export const proWaybillInputSchema = z.strictObject({
  waybill: z.string().trim().min(1, "waybill must not be empty"),
  courier: singleCourierSchema,
});
/** Input of `ShippingProClient.trackWaybill`. */
export type ProWaybillInput = z.input<typeof proWaybillInputSchema>;

// ---------------------------------------------------------------------------------------------------------------
// Responses: the inside of `{ rajaongkir: { ... } }`. Ids and postal codes are strings there; numbers are accepted.
// ---------------------------------------------------------------------------------------------------------------

/**
 * A province (Pro/Starter).
 *
 * @example
 * proProvinceSchema.parse({ province_id: "9", province: "Jawa Barat" });
 */
export const proProvinceSchema = z.looseObject({ province_id: idSchema, province: z.string().optional() });
/** A Pro/Starter province record. */
export type ProProvince = z.infer<typeof proProvinceSchema>;

/**
 * A city (Pro/Starter). `type` is `Kota` or `Kabupaten` (open).
 *
 * @example
 * proCitySchema.parse({ city_id: "23", province_id: "9", province: "Jawa Barat", type: "Kota", city_name: "Bandung",
 *   postal_code: "40111" });
 */
export const proCitySchema = z.looseObject({
  city_id: idSchema,
  province_id: idSchema.optional(),
  province: z.string().optional(),
  type: z.string().optional(),
  city_name: z.string().optional(),
  postal_code: textSchema.optional(),
});
/** A Pro/Starter city record. */
export type ProCity = z.infer<typeof proCitySchema>;

/**
 * A subdistrict (Pro).
 *
 * @example
 * proSubdistrictSchema.parse({ subdistrict_id: "2103", city_id: "151", city: "Jakarta Barat", subdistrict_name: "Cengkareng" });
 */
export const proSubdistrictSchema = z.looseObject({
  subdistrict_id: idSchema,
  province_id: idSchema.optional(),
  province: z.string().optional(),
  city_id: idSchema.optional(),
  city: z.string().optional(),
  type: z.string().optional(),
  subdistrict_name: z.string().optional(),
});
/** A Pro subdistrict record. */
export type ProSubdistrict = z.infer<typeof proSubdistrictSchema>;

/**
 * One price of a service (`cost[]` inside `costs[]`). `etd` is in days; read it with `parseEtd`.
 *
 * @example
 * proCostValueSchema.parse({ value: 38000, etd: "1-2", note: "" });
 */
export const proCostValueSchema = z.looseObject({
  value: amountSchema,
  etd: etdTextSchema,
  note: z.string().nullish(),
});
/** A Pro/Starter price entry. */
export type ProCostValue = z.infer<typeof proCostValueSchema>;

/**
 * One courier with its services: `{ code, name, costs[] = { service, description, cost[] = { value, etd, note } } }`.
 *
 * @example
 * proCourierCostSchema.parse({ code: "jne", name: "JNE", costs: [{ service: "REG", cost: [{ value: 9000, etd: "2-3" }] }] });
 */
export const proCourierCostSchema = z.looseObject({
  code: openEnum(COURIER_CODES),
  name: z.string().optional(),
  costs: z.array(
    z.looseObject({
      service: z.string(),
      description: z.string().optional(),
      cost: z.array(proCostValueSchema),
    }),
  ),
});
/** A courier's cost block. */
export type ProCourierCost = z.infer<typeof proCourierCostSchema>;

const detailsSchema = z.looseObject({}).nullish();

/**
 * The result of a Pro/Starter cost: courier blocks plus what the provider says about origin and destination.
 *
 * @example
 * proCostResultSchema.parse({ results: [], origin_details: { city_id: "501" }, destination_details: null });
 */
export const proCostResultSchema = z.looseObject({
  query: z.looseObject({}).optional(),
  results: z.array(proCourierCostSchema),
  origin_details: detailsSchema,
  destination_details: detailsSchema,
});
/** A Pro/Starter cost result. */
export type ProCostResult = z.infer<typeof proCostResultSchema>;

/**
 * An international origin (Pro).
 *
 * @example
 * proInternationalOriginSchema.parse({ city_id: "152", city_name: "Jakarta Pusat", province_id: "6" });
 */
export const proInternationalOriginSchema = z.looseObject({
  city_id: idSchema.optional(),
  city_name: z.string().optional(),
  province_id: idSchema.optional(),
  province: z.string().optional(),
  country_id: idSchema.optional(),
  country_name: z.string().optional(),
});
/** A Pro international origin. */
export type ProInternationalOrigin = z.infer<typeof proInternationalOriginSchema>;

/**
 * An international destination country (Pro).
 *
 * @example
 * proInternationalDestinationSchema.parse({ country_id: "108", country_name: "Malaysia (MY)" });
 */
export const proInternationalDestinationSchema = z.looseObject({
  country_id: idSchema,
  country_name: z.string().optional(),
});
/** A Pro international destination. */
export type ProInternationalDestination = z.infer<typeof proInternationalDestinationSchema>;

/**
 * One international service price. `cost` is a decimal amount in `currency` (`IDR` or `USD`, open).
 *
 * @example
 * proInternationalCostServiceSchema.parse({ service: "Paket Pos Biasa", currency: "IDR", cost: 292000, etd: "" });
 */
export const proInternationalCostServiceSchema = z.looseObject({
  service: z.string(),
  description: z.string().optional(),
  currency: z.string().optional(),
  cost: amountSchema,
  etd: etdTextSchema,
});

/**
 * The result of a Pro international cost.
 *
 * @example
 * proInternationalCostResultSchema.parse({ results: [{ code: "pos", name: "POS", costs: [] }] });
 */
export const proInternationalCostResultSchema = z.looseObject({
  query: z.looseObject({}).optional(),
  results: z.array(
    z.looseObject({ code: z.string(), name: z.string().optional(), costs: z.array(proInternationalCostServiceSchema) }),
  ),
  origin_details: detailsSchema,
  destination_details: detailsSchema,
});
/** A Pro international cost result. */
export type ProInternationalCostResult = z.infer<typeof proInternationalCostResultSchema>;

/**
 * The rupiah rate against the US dollar.
 *
 * @example
 * proCurrencySchema.parse({ value: 16250, last_update: "2026-11-20 10:00:00" });
 */
export const proCurrencySchema = z.looseObject({
  value: amountSchema,
  last_update: z.string().optional(),
  source_name: z.string().optional(),
  source_link: z.string().optional(),
});
/** The currency rate. */
export type ProCurrency = z.infer<typeof proCurrencySchema>;

/**
 * Pro waybill tracking result (`summary`, `details`, `delivery_status`, `manifest`).
 *
 * @example
 * proWaybillSchema.parse({ delivered: true, summary: { status: "DELIVERED" }, manifest: null });
 */
export const proWaybillSchema = z.looseObject({
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
  details: z
    .looseObject({
      waybill_number: z.string().optional(),
      waybill_date: z.string().optional(),
      waybill_time: z.string().optional(),
      weight: amountSchema.optional(),
      origin: z.string().optional(),
      destination: z.string().optional(),
      shipper_name: z.string().optional(),
      receiver_name: z.string().optional(),
    })
    .nullish(),
  delivery_status: z
    .looseObject({
      status: waybillStatusSchema.optional(),
      pod_receiver: z.string().nullish(),
      pod_date: z.string().nullish(),
      pod_time: z.string().nullish(),
    })
    .nullish(),
  manifest: z
    .array(
      z.looseObject({
        manifest_code: textSchema.optional(),
        manifest_description: z.string().optional(),
        manifest_date: z.string().optional(),
        manifest_time: z.string().optional(),
        city_name: z.string().nullish(),
      }),
    )
    .nullish()
    .transform((v) => v ?? []),
});
/** A Pro tracked waybill. */
export type ProWaybill = z.infer<typeof proWaybillSchema>;
