// Entry point of `@kirimbayar/core/knex`: the idempotency stores' binding to Knex (an optional peer, imported for its
// types only), so an app on Knex runs the store's statements and its transactional deliveries through its own pool.
export { knexBinding } from "./idempotency/bindings/knex/index.js";
