import type { ShippingClient } from "@kirimbayar/core";
import { createRateQuoter, type RateQuoter, type RateQuoterOptions } from "@kirimbayar/core/quoter";
import { redisRateStore } from "@kirimbayar/core/quoter/redis";
import type { ShopConfig } from "./config.js";
import { closeShopRedis, connectShopRedis } from "./redis.js";

/** The shop's rate quoter: domestic costs from the warehouse, within the checkout's time budget. */
export type ShopQuoter = RateQuoter<{ origin: number; destination: number; weight: number }>;

/** A rate quoter and how to release it. */
export interface ShopQuoting {
  quoter: ShopQuoter;
  /** Where prices are cached, for the startup log: Redis (shared by every instance) or this process's memory. */
  cache: "redis" | "memory";
  close(): Promise<void>;
}

/**
 * The shop's checkout quotes: the configured couriers priced within `SHOP_QUOTE_BUDGET_MS` (default 800 ms), a slow
 * or failing courier never holding back the others, prices cached (in Redis when `REDIS_URL` is set, so every
 * instance shares them and asks the provider once per question; else in memory), and `SHOP_BACKUP_RATE` shown for a
 * courier without a price in time, when it is set.
 *
 * @example
 * const { quoter } = await createShopQuoting(config, clients.shipping);
 * const quote = await quoter.quote({ origin: config.shipping.originId, destination: 68423, weight: 1200 });
 */
export async function createShopQuoting(
  config: ShopConfig,
  shipping: ShippingClient,
  options: Pick<RateQuoterOptions<ShippingClient>, "clock"> = {},
): Promise<ShopQuoting> {
  const { couriers, quoteBudgetMs, backupRate } = config.shipping;
  const settings = {
    client: shipping,
    couriers,
    budgetMs: quoteBudgetMs,
    ...(backupRate === undefined ? {} : { backup: { flat: { cost: backupRate } } }),
    ...options,
  };
  if (config.redisUrl === undefined) {
    return { quoter: createRateQuoter(settings), cache: "memory", close: async () => {} };
  }
  // Fail fast while disconnected: the quoter then answers from its memory and the provider, not from a queue.
  const client = await connectShopRedis(config.redisUrl);
  return {
    quoter: createRateQuoter({ ...settings, cache: { store: redisRateStore({ client, keyPrefix: "shop:rates:" }) } }),
    cache: "redis",
    close: () => closeShopRedis(client),
  };
}
