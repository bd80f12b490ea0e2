// Entry point of `@kirimbayar/core/knex`: the idempotency stores' binding to Knex (an optional peer: typed by its
// shape, nothing of it imported), so an app on Knex runs the store's statements and its transactional deliveries
// through its own pool, with `ctx.transaction` typed as its instance's `Knex.Transaction`.
export { type KnexLike, type KnexTransactionOf, knexBinding } from "./idempotency/bindings/knex/index.js";
