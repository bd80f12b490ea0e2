// Entry point of `@kirimbayar/core/sequelize`: the idempotency stores' binding to Sequelize 6 (an optional peer: typed
// by its shape, nothing of it imported), so an app on Sequelize runs the store's statements and its transactional
// deliveries through its own pool, with `ctx.transaction` typed as its `Transaction`.
export {
  type SequelizeLike,
  type SequelizeTransactionOf,
  sequelizeBinding,
} from "./idempotency/bindings/sequelize/index.js";
