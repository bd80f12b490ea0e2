// The Prisma binding (@kirimbayar/core/prisma) on a real PostgreSQL server, through Prisma 7 with its pg driver
// adapter: every guarantee of transactional handlers (the shared transactional contract), the handler's writes in
// Prisma's own idiom (`tx.order.upsert`), typed with no cast, Prisma's interactive-transaction time limit that must
// not cut a handler short, and a binding given the wrong object.

import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from "vitest";
import { PostgresIdempotencyStore } from "../src/postgres.js";
import { type PrismaTransactionClient, prismaBinding } from "../src/prisma.js";
import { createWebhookReceiver, tokenVerifier, WebhookConfigurationError } from "../src/webhooks.js";
import { PrismaClient } from "./prisma/generated/client.js";
import { postgresJournalOnOwnPool } from "./support/own-journal.js";
import { transactionalContract } from "./support/transactional-contract.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

type Tx = PrismaTransactionClient<PrismaClient>;

const ORDERS = `CREATE TABLE IF NOT EXISTS orders (history_id text PRIMARY KEY, paid_count integer NOT NULL DEFAULT 0)`;

let server: TestPostgresServer;

beforeAll(async () => {
  server = await startPostgresServer();
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(ORDERS);
  await admin.end();
}, 60_000);

afterAll(async () => {
  await server?.destroy();
});

/** A PrismaClient over its own small pg pool (the pool's errors, e.g. a terminated backend, handled). */
function prismaOn(config: pg.PoolConfig): { prisma: PrismaClient; pool: pg.Pool } {
  const pool = new pg.Pool(config);
  pool.on("error", () => {});
  return { prisma: new PrismaClient({ adapter: new PrismaPg(pool) }), pool };
}

/** Waits (bounded) until backend `pid` is gone from the server. */
async function gone(admin: pg.Pool, pid: number): Promise<void> {
  await vi.waitFor(
    async () => {
      const { rows } = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [pid]);
      expect(rows).toHaveLength(0);
    },
    { timeout: 5_000, interval: 20 },
  );
}

transactionalContract<Tx>("Prisma binding (Prisma 7, @prisma/adapter-pg)", async () => {
  const poolSize = 3;
  const { prisma, pool } = prismaOn({ connectionString: server.url, max: poolSize });
  const admin = new pg.Pool({ connectionString: server.url, max: 2 });
  const dead = prismaOn({ host: "127.0.0.1", port: 1, connectionTimeoutMillis: 500 });
  return {
    poolSize,
    store: (table) => new PostgresIdempotencyStore({ binding: prismaBinding(prisma), table }),
    markPaid: (tx, id) =>
      tx.order.upsert({
        where: { historyId: id },
        create: { historyId: id, paidCount: 1 },
        update: { paidCount: { increment: 1 } },
      }),
    paidCount: async (id) => (await prisma.order.findUnique({ where: { historyId: id } }))?.paidCount ?? 0,
    killBackend: async (tx) => {
      const [row] = await tx.$queryRawUnsafe<{ pid: number }[]>("SELECT pg_backend_pid() AS pid");
      await admin.query("SELECT pg_terminate_backend($1, 5000)", [row?.pid]);
      await gone(admin, Number(row?.pid));
    },
    unreachableStore: () => new PostgresIdempotencyStore({ binding: prismaBinding(dead.prisma) }),
    journal: (table) => postgresJournalOnOwnPool({ connectionString: server.url }, table),
    close: async () => {
      await prisma.$disconnect();
      await dead.prisma.$disconnect();
      await pool.end();
      await dead.pool.end();
      await admin.end();
    },
  };
});

const TOKEN = "prisma-token";
const quiet = { warn: () => {}, error: () => {} };
const delivery = (id: string) =>
  webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Prisma binding: the shop's handler in Prisma's idiom", () => {
  let prisma: PrismaClient;
  let pool: pg.Pool;
  let tables = 0;

  beforeAll(() => {
    ({ prisma, pool } = prismaOn({ connectionString: server.url, max: 3 }));
  });

  afterAll(async () => {
    await prisma?.$disconnect();
    await pool?.end();
  });

  async function receiverWith(binding: ReturnType<typeof prismaBinding<PrismaClient>>, handlerTimeoutMs: number) {
    const store = new PostgresIdempotencyStore({ binding, table: `prisma_idiom_${tables++}` });
    await store.ensureSchema();
    return createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: { store, transactional: true, handlerTimeoutMs },
      logger: quiet,
    });
  }

  it("gives handlers Prisma's transaction client, typed for the schema: ctx.transaction.order.update needs no cast", async () => {
    const receiver = (await receiverWith(prismaBinding(prisma), 5_000)).on("payment.success", async (event, ctx) => {
      expectTypeOf(ctx.transaction).toEqualTypeOf<Tx>();
      const id = String(event.data.qris_history_id);
      await ctx.transaction.order.create({ data: { historyId: id } });
      await ctx.transaction.order.update({ where: { historyId: id }, data: { paidCount: { increment: 1 } } });
    });
    expect((await receiver.handle(delivery("idiom-1"))).status).toBe(200);
    expect(await prisma.order.findUnique({ where: { historyId: "idiom-1" } })).toEqual({
      historyId: "idiom-1",
      paidCount: 1,
    });
  });

  it("types ctx.transaction from a client extended with $extends, its model extensions included", async () => {
    const extended = prisma.$extends({
      model: {
        order: {
          async markPaid(this: unknown, historyId: string) {
            // `this` is the model of the client it is called on: the transaction's, inside a transaction.
            const orders = this as unknown as PrismaClient["order"];
            return orders.upsert({
              where: { historyId },
              create: { historyId, paidCount: 1 },
              update: { paidCount: { increment: 1 } },
            });
          },
        },
      },
    });
    const store = new PostgresIdempotencyStore({ binding: prismaBinding(extended), table: `prisma_idiom_${tables++}` });
    await store.ensureSchema();
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: { store, transactional: true },
      logger: quiet,
    }).on("payment.success", async (event, ctx) => {
      await ctx.transaction.order.markPaid(String(event.data.qris_history_id));
      throw new Error("rolled back after the extension's write");
    });
    expect((await receiver.handle(delivery("idiom-extended"))).status).toBe(500);
    expect(await prisma.order.findUnique({ where: { historyId: "idiom-extended" } })).toBeNull();
  });

  it("does not let Prisma's own 5 s transaction limit cut a handler short: the default is far longer", async () => {
    const receiver = (await receiverWith(prismaBinding(prisma), 15_000)).on("payment.success", async (event, ctx) => {
      const id = String(event.data.qris_history_id);
      await ctx.transaction.order.create({ data: { historyId: id, paidCount: 1 } });
      await sleep(5_500); // past Prisma's default interactive-transaction timeout (5,000 ms)
    });
    expect((await receiver.handle(delivery("idiom-slow"))).status).toBe(200);
    expect((await prisma.order.findUnique({ where: { historyId: "idiom-slow" } }))?.paidCount).toBe(1);
  }, 20_000);

  it("lets the app set Prisma's limit: a handler past timeoutMs is rolled back by Prisma and answered 500", async () => {
    const receiver = (await receiverWith(prismaBinding(prisma, { timeoutMs: 300 }), 5_000)).on(
      "payment.success",
      async (event, ctx) => {
        await ctx.transaction.order.create({ data: { historyId: String(event.data.qris_history_id), paidCount: 1 } });
        await sleep(600);
      },
    );
    expect((await receiver.handle(delivery("idiom-short"))).status).toBe(500);
    expect(await prisma.order.findUnique({ where: { historyId: "idiom-short" } })).toBeNull();
  });

  it("rejects a non-positive timeoutMs or maxWaitMs when built", () => {
    expect(() => prismaBinding(prisma, { timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(() => prismaBinding(prisma, { maxWaitMs: Number.NaN })).toThrow(/maxWaitMs/);
  });
});

describe("Prisma binding given the wrong object", () => {
  it("names a Prisma transaction client passed instead of the PrismaClient", async () => {
    const { prisma, pool } = prismaOn({ connectionString: server.url, max: 1 });
    let message = "";
    await prisma.$transaction(async (tx) => {
      try {
        prismaBinding(tx as unknown as PrismaClient);
      } catch (error) {
        expect(error).toBeInstanceOf(WebhookConfigurationError);
        message = (error as Error).message;
      }
    });
    expect(message).toMatch(/got a Prisma transaction client.*Pass the PrismaClient itself/);
    await prisma.$disconnect();
    await pool.end();
  });
});
