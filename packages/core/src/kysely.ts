// Entry point of `@kirimbayar/core/kysely`: the idempotency stores' binding to Kysely (an optional peer, imported for
// its types only), so an app on Kysely runs the store's statements and its transactional deliveries through its own
// connections, with `ctx.transaction` typed as its `Transaction<DB>`.
export { type KyselyDatabase, type KyselyTransactionOf, kyselyBinding } from "./idempotency/bindings/kysely/index.js";
