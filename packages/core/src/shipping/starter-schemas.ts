import { z } from "zod";
import { isCourierIn, STARTER_COURIER_CODES } from "../helpers/couriers.js";
import { routeCostFields } from "./schema-parts.js";

/**
 * Form of the Starter cost (`POST /starter/cost`): city ids, grams, and only `jne`, `pos`, `tiki` (one or several
 * joined with `:`).
 *
 * @example
 * starterCostInputSchema.parse({ origin: "501", destination: "114", weight: 1700, courier: "jne" });
 */
export const starterCostInputSchema = z.strictObject({
  ...routeCostFields,
  courier: routeCostFields.courier.superRefine((joined, ctx) => {
    for (const code of joined.split(":")) {
      if (!isCourierIn(code, STARTER_COURIER_CODES)) {
        ctx.addIssue({
          code: "custom",
          message: `courier "${code}" is not available on the Starter account (only ${STARTER_COURIER_CODES.join(", ")})`,
        });
      }
    }
  }),
});
/** Input of `ShippingStarterClient.calculateCost`. */
export type StarterCostInput = z.input<typeof starterCostInputSchema>;
