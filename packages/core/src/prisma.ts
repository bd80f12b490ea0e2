// Entry point of `@kirimbayar/core/prisma`: the SQL idempotency store's binding to Prisma. Its own entry, so an app
// that does not use Prisma never loads it; it imports nothing from Prisma at run time (Prisma stays an optional peer).
export {
  type PrismaBindingOptions,
  type PrismaClientLike,
  type PrismaTransactionClient,
  prismaBinding,
} from "./idempotency/bindings/prisma/index.js";
export type { SqlBinding, SqlResult } from "./idempotency/sql/binding.js";
