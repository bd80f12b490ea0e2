import { z } from "zod";
import { routeCostFields } from "./schema-parts.js";

/**
 * Form of the Starter cost (`POST /starter/cost`): city ids, grams, and courier codes joined with `:`. The spec
 * names `jne`, `pos` and `tiki` for the Starter account (`STARTER_COURIER_CODES`); other codes are sent too, since
 * the provider, not this client, knows what an account may price.
 *
 * @example
 * starterCostInputSchema.parse({ origin: "501", destination: "114", weight: 1700, courier: "jne" });
 */
export const starterCostInputSchema = z.strictObject({
  ...routeCostFields,
});
/** Input of `ShippingStarterClient.calculateCost`. */
export type StarterCostInput = z.input<typeof starterCostInputSchema>;
