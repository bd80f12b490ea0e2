// Entry point of `@kirimbayar/core/typeorm`: the SQL idempotency store's binding to TypeORM. Its own entry, so an app
// that does not use TypeORM never loads it; TypeORM stays an optional peer, typed by its shape (nothing imported), with
// `ctx.transaction` typed as the DataSource's own `EntityManager`.
export {
  type TypeormBindingOptions,
  type TypeormDataSourceLike,
  type TypeormEntityManagerOf,
  typeormBinding,
} from "./idempotency/bindings/typeorm/index.js";
export type { SqlBinding, SqlResult } from "./idempotency/sql/binding.js";
