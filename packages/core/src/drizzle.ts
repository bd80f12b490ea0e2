// Entry point of `@kirimbayar/core/drizzle`: the idempotency stores' binding to Drizzle over pg or mysql2 (optional
// peers, never imported), so an app on Drizzle runs the store's statements and its transactional deliveries through
// its own pool, with `ctx.transaction` typed as its Drizzle transaction.
export {
  type DrizzleDatabaseLike,
  type DrizzleTransactionOf,
  drizzleBinding,
} from "./idempotency/bindings/drizzle/index.js";
