// Entry point of `@kirimbayar/core/typeorm`: the SQL idempotency store's binding to TypeORM. Its own entry, so an app
// that does not use TypeORM never loads it; it imports only TypeORM's types (TypeORM stays an optional peer).
export { type TypeormBindingOptions, typeormBinding } from "./idempotency/bindings/typeorm/index.js";
export type { SqlBinding, SqlResult } from "./idempotency/sql/binding.js";
