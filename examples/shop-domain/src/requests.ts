import { z } from "zod";
import { ShopError } from "./errors.js";

const rupiah = z.int("must be a whole number of rupiah").positive("must be positive");
const grams = z.int("must be a whole number of grams").positive("must be positive");

/** Query of `GET /shipping/destinations`. */
export const destinationSearchRequestSchema = z.strictObject({
  search: z.string().trim().min(2, "type at least 2 characters").max(100),
  limit: z.coerce.number().int().min(1).max(50).default(10),
});
/** A validated destination search. */
export type DestinationSearchRequest = z.output<typeof destinationSearchRequestSchema>;

/** Body of `POST /shipping/quote`. */
export const quoteRequestSchema = z.strictObject({
  destination_id: z.int().positive(),
  weight: grams,
  /** Courier codes to ask; the shop's default list when left out. */
  couriers: z.array(z.string().trim().min(1)).min(1).max(10).optional(),
});
/** A validated quote request. */
export type QuoteRequest = z.output<typeof quoteRequestSchema>;

/** Body of `POST /orders`: the cart, the buyer and the courier service picked from a quote. */
export const createOrderRequestSchema = z.strictObject({
  customer: z.strictObject({
    name: z.string().trim().min(1).max(100),
    email: z.email(),
    phone: z.string().regex(/^\+?\d{8,15}$/, "must be a phone number such as 081234567890"),
  }),
  items: z
    .array(
      z.strictObject({
        name: z.string().trim().min(1).max(100),
        quantity: z.int().positive().max(1000),
        price: rupiah,
        weight: grams,
      }),
    )
    .min(1, "an order needs at least one item"),
  destination_id: z.int().positive(),
  courier: z.string().trim().min(1),
  service: z.string().trim().min(1),
});
/** A validated order request. */
export type CreateOrderRequest = z.output<typeof createOrderRequestSchema>;

/** Body of `POST /orders/:id/pay-by-va`. */
export const payByVaRequestSchema = z.strictObject({
  bank_code: z.string().trim().min(2).max(20),
});
/** A validated VA payment request. */
export type PayByVaRequest = z.output<typeof payByVaRequestSchema>;

/**
 * Validates what a client sent to the shop, listing every problem at once.
 *
 * @throws {ShopError} `invalid_request` with one issue per failing field.
 * @example
 * const body = parseRequest(quoteRequestSchema, req.body);
 */
export function parseRequest<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new ShopError("invalid_request", "The request is invalid", {
    issues: result.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message })),
  });
}
