// The rate quoter: checkout prices within a time budget, cached and coalesced. Its own folder and entry
// (`@kirimbayar/core/quoter`), so an app that only receives webhooks never loads it.
export type { BackupRate, BackupRates, BackupRoute } from "./backup.js";
export { SLOW_ISOLATION_MS } from "./courier-health.js";
export {
  DEFAULT_MEMORY_RATE_STORE_MAX,
  MemoryRateStore,
  type MemoryRateStoreOptions,
  memoryRateStore,
  type RouteSlot,
} from "./memory-store.js";
export type {
  ChosenOperation,
  CostInputOf,
  CostOperationOf,
  DefaultOperationOf,
  QuotableClient,
} from "./operations.js";
export {
  DEFAULT_QUOTE_BUDGET_MS,
  DEFAULT_RATE_CACHE,
  type RateCacheOptions,
  type RateQuoterOptions,
} from "./options.js";
export { QuoteWaitError } from "./pricer.js";
export { createRateQuoter, type RateQuoter } from "./quoter.js";
export type { QuoteRequest } from "./request.js";
export type { QuoterCounts, QuoterStats } from "./stats.js";
export type {
  CourierRates,
  MissingCourier,
  MissingReason,
  RateEntry,
  RateOption,
  RateQuote,
  RateSource,
  RateStore,
} from "./types.js";
export { type BilledWeight, exactWeight, perKilogramWeight } from "./weight.js";
