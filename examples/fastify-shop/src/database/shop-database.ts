import { PostgresDeliveryJournal, PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { prismaBinding } from "@kirimbayar/core/prisma";
import { type ShopConfig, type ShopDatabase, startEmbeddedPostgres } from "@kirimbayar/example-shop-domain";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "../generated/prisma/client.js";
import { PrismaOrderRepository, type PrismaTransactionClient } from "./prisma-order-repository.js";
import { SHOP_PRISMA_SCHEMA } from "./schema.js";

/**
 * Opens the Fastify shop's database through Prisma (with its `pg` driver adapter): the PostgreSQL server of
 * `DATABASE_URL`, or without one an embedded PostgreSQL (PGlite, nothing to install). The webhooks' idempotency store
 * runs through the same client (`prismaBinding`), so a payment webhook's handler updates its order on Prisma's
 * interactive transaction (`ctx.transaction`) together with the event's record and its journal entry.
 *
 * @example
 * const runtime = await createShopRuntime(config, { publicBaseUrl, database: openPrismaDatabase });
 */
export async function openPrismaDatabase(config: ShopConfig): Promise<ShopDatabase<PrismaTransactionClient>> {
  if (config.databaseUrl !== undefined && !/^postgres(ql)?:/.test(config.databaseUrl)) {
    throw new Error("DATABASE_URL: the Fastify shop keeps its orders in PostgreSQL (Prisma's pg adapter)");
  }
  const embedded = config.databaseUrl === undefined ? await startEmbeddedPostgres() : undefined;
  const connectionString = config.databaseUrl ?? (embedded?.url as string);
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString, max: embedded === undefined ? 10 : 4 }),
  });
  const close = async () => {
    await prisma.$disconnect();
    await embedded?.close();
  };
  try {
    for (const statement of SHOP_PRISMA_SCHEMA) await prisma.$executeRawUnsafe(statement);
    const store = new PostgresIdempotencyStore({ binding: prismaBinding(prisma), table: "shop_webhook_events" });
    await store.ensureSchema();
    // Beside the records: each delivery's entry is written in its transaction, and commits with the order update.
    const journal = new PostgresDeliveryJournal({ binding: prismaBinding(prisma), table: "shop_webhook_journal" });
    await journal.ensureSchema();
    const orders = PrismaOrderRepository.of(prisma);
    return {
      orders,
      store,
      journal,
      ordersWithin: (tx) => orders.within(tx),
      kind: embedded === undefined ? "postgres" : "pglite",
      close,
    };
  } catch (error) {
    await close();
    // The URL may carry a password: name the variable, not its value.
    throw new Error(`Cannot prepare the database of DATABASE_URL: ${(error as Error).message}`, { cause: error });
  }
}
