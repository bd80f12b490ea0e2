// The transactional Postgres rows of stores.test.ts once more, with the store reached through the shop's own ORM
// instead of `pg`: Prisma 7 (@kirimbayar/core/prisma, over @prisma/adapter-pg) and TypeORM 1.1
// (@kirimbayar/core/typeorm), on a real PostgreSQL server. The conformance table runs through the Express adapter
// (as the pg row does), with every QRIS handler call writing its order through ctx.transaction in the ORM's own
// idiom: the committed orders must be exactly those of the calls that succeeded. The hanging-handler row runs on
// every adapter: 500 at handlerTimeoutMs, nothing of the abandoned transaction commits, the redelivery applies once.
import { PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { type PrismaTransactionClient, prismaBinding } from "@kirimbayar/core/prisma";
import { typeormBinding } from "@kirimbayar/core/typeorm";
import type { IdempotencyStore, WebhookContext } from "@kirimbayar/core/webhooks";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { DataSource, type EntityManager, EntitySchema } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PrismaClient } from "../prisma/generated/client.js";
import { adapters, expressAdapter } from "./adapters.js";
import { conformanceCases } from "./cases.js";
import { json, qrisPaid, secrets, sourceOptions } from "./fixtures.js";
import { type HandlerBehaviour, HandlerRecorder } from "./recorder.js";

interface Order {
  historyId: string;
  paidCount: number;
}

const OrderEntity = new EntitySchema<Order>({
  name: "Order",
  tableName: "binding_orders",
  columns: {
    historyId: { name: "history_id", type: String, primary: true },
    paidCount: { name: "paid_count", type: Number, default: 0 },
  },
});

/** One ORM under test: its store, the handler's write in its idiom, and the committed paid counts. */
interface BindingUnderTest {
  name: "prisma" | "typeorm";
  /** A store on the fresh table `table` (created), reached through the ORM. */
  store(table: string): Promise<IdempotencyStore>;
  /** Adds one to order `id`'s paid count through the delivery's transaction object. */
  markPaid(transaction: unknown, id: string): Promise<unknown>;
  /** Committed paid counts by order id. */
  paidCounts(): Promise<Record<string, number>>;
}

let postgres: TestPostgresServer;
let admin: pg.Pool;
let prismaPool: pg.Pool;
let prisma: PrismaClient;
let dataSource: DataSource;
let space = 0;

beforeAll(async () => {
  postgres = await startPostgresServer();
  admin = new pg.Pool({ connectionString: postgres.url, max: 2 });
  admin.on("error", () => {});
  await admin.query("CREATE TABLE binding_orders (history_id text PRIMARY KEY, paid_count integer NOT NULL DEFAULT 0)");
  prismaPool = new pg.Pool({ connectionString: postgres.url, max: 5 });
  prismaPool.on("error", () => {});
  prisma = new PrismaClient({ adapter: new PrismaPg(prismaPool) });
  dataSource = await new DataSource({
    type: "postgres",
    host: "127.0.0.1",
    port: postgres.port,
    username: "postgres",
    database: "postgres",
    entities: [OrderEntity],
    poolSize: 5,
    logging: false,
  }).initialize();
}, 60_000);

afterAll(async () => {
  await prisma?.$disconnect();
  await prismaPool?.end();
  await dataSource?.destroy();
  await admin?.end();
  await postgres?.destroy();
});

async function created<S extends { ensureSchema(): Promise<void> }>(store: S): Promise<S> {
  await store.ensureSchema();
  return store;
}

const bindings: BindingUnderTest[] = [
  {
    name: "prisma",
    store: (table) => created(new PostgresIdempotencyStore({ binding: prismaBinding(prisma), table })),
    markPaid: (transaction, id) =>
      (transaction as PrismaTransactionClient<PrismaClient>).order.upsert({
        where: { historyId: id },
        create: { historyId: id, paidCount: 1 },
        update: { paidCount: { increment: 1 } },
      }),
    paidCounts: async () =>
      Object.fromEntries((await prisma.order.findMany()).map((order) => [order.historyId, order.paidCount])),
  },
  {
    name: "typeorm",
    store: (table) => created(new PostgresIdempotencyStore({ binding: typeormBinding(dataSource), table })),
    markPaid: async (transaction, id) => {
      const orders = (transaction as EntityManager).getRepository(OrderEntity);
      if (await orders.existsBy({ historyId: id })) await orders.increment({ historyId: id }, "paidCount", 1);
      else await orders.insert({ historyId: id, paidCount: 1 });
    },
    paidCounts: async () =>
      Object.fromEntries(
        (await dataSource.getRepository(OrderEntity).find()).map((order) => [order.historyId, order.paidCount]),
      ),
  },
];

/** The table's recorder, whose QRIS calls also write their order through the delivery's transaction. */
class OrderWriter extends HandlerRecorder {
  /** Orders written by calls that then succeeded: what must have committed. */
  readonly committed = new Map<string, number>();
  readonly #failsFirst: boolean;
  #calls = 0;

  constructor(
    behaviour: HandlerBehaviour,
    private readonly binding: BindingUnderTest,
  ) {
    super(behaviour);
    this.#failsFirst = behaviour === "fail-first-call";
  }

  override async handle(source: string, event: unknown, ctx?: WebhookContext): Promise<void> {
    const first = this.#calls++ === 0;
    const id = (event as { data?: { qris_history_id?: unknown } }).data?.qris_history_id;
    if (source === "qris" && ctx !== undefined) {
      expect(ctx.transaction).toBeDefined();
      await this.binding.markPaid(ctx.transaction, String(id));
    }
    await super.handle(source, event, ctx);
    // Reached only when the call succeeded (a failing first call threw above).
    if (source === "qris" && !(first && this.#failsFirst)) {
      this.committed.set(String(id), (this.committed.get(String(id)) ?? 0) + 1);
    }
  }
}

describe.each(bindings)("Express adapter on the transactional Postgres store through the $name binding", (binding) => {
  it.each(conformanceCases)("$name", async (row) => {
    await admin.query("DELETE FROM binding_orders");
    const recorder = new OrderWriter(row.behaviour ?? "succeed", binding);
    const shared = await binding.store(`${binding.name}_row_${space++}`);
    const options = sourceOptions(() => shared);
    for (const source of ["qris", "payment", "orders"] as const) {
      options[source] = { ...options[source], idempotency: { store: shared, transactional: true } };
    }
    const app = await expressAdapter.start(options, recorder);
    try {
      if (row.timing === "in-flight") {
        const [first, second] = row.steps as [(typeof row.steps)[0], (typeof row.steps)[0]];
        const firstAnswer = app.send(first.send);
        await recorder.entered();
        expect((await app.send(second.send)).status).toBe(second.expect.status);
        recorder.release();
        expect((await firstAnswer).status).toBe(first.expect.status);
      } else {
        for (const step of row.steps) {
          const answer = await app.send(step.send);
          expect(answer.status).toBe(step.expect.status);
          if (step.expect.success !== undefined) expect(JSON.parse(answer.body).success).toBe(step.expect.success);
        }
      }
      expect(recorder.calls).toEqual(row.calls);
      expect(await binding.paidCounts()).toEqual(Object.fromEntries(recorder.committed));
    } finally {
      await app.close();
    }
  });
});

/**
 * A QRIS handler writing through the delivery's transaction in the ORM's idiom: on its first call it writes, hangs
 * until the receiver gives up on it (ctx.signal), then tries to write again, as a handler ignoring the signal would.
 */
class HangingPaymentWriter extends HandlerRecorder {
  qrisCalls = 0;
  /** How the write sent after the time limit ended: refused by the ORM, or (never) accepted. */
  lateWrite: "refused" | "accepted" | undefined;

  constructor(private readonly binding: BindingUnderTest) {
    super();
  }

  override async handle(source: string, event: unknown, ctx?: WebhookContext): Promise<void> {
    if (source !== "qris" || ctx === undefined) return super.handle(source, event, ctx);
    this.qrisCalls++;
    const id = String((event as { data: { qris_history_id: unknown } }).data.qris_history_id);
    if (this.qrisCalls > 1) return void (await this.binding.markPaid(ctx.transaction, id));
    // Refused too when it outlasts the limit itself; either way nothing of it may commit.
    await this.binding.markPaid(ctx.transaction, id).catch(() => {});
    // The first write may itself outlast the limit (Prisma compiles its first query): the signal is aborted then.
    if (!ctx.signal.aborted) {
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
    }
    this.lateWrite = await this.binding.markPaid(ctx.transaction, id).then(
      () => "accepted" as const,
      () => "refused" as const,
    );
  }
}

describe.each(
  adapters.flatMap((adapter) => bindings.map((binding) => ({ adapter, binding, name: `${adapter.name} adapter` }))),
)(
  "$name, transactional Postgres store through the $binding.name binding, a handler that hangs",
  ({ adapter, binding }) => {
    it("answers 500 at handlerTimeoutMs; nothing of the abandoned transaction commits; the redelivery applies once", async () => {
      const id = `hang-${binding.name}-${space++}`;
      const store = await binding.store(`${binding.name}_hang_${space++}`);
      const options = sourceOptions();
      options.qris = {
        ...options.qris,
        logger: {},
        idempotency: { store, transactional: true, handlerTimeoutMs: 200 },
      };
      const writer = new HangingPaymentWriter(binding);
      const app = await adapter.start(options, writer);
      const paidCount = async () => (await binding.paidCounts())[id] ?? 0;
      try {
        const delivery = {
          source: "qris" as const,
          query: `?token=${secrets.qrisToken}`,
          headers: json,
          body: qrisPaid(id),
        };
        expect((await app.send(delivery)).status).toBe(500);
        expect(await paidCount()).toBe(0);
        // The late write (after the limit, through the same transaction object) is refused and never commits.
        await expect.poll(() => writer.lateWrite, { timeout: 5_000, interval: 20 }).toBe("refused");
        expect(await paidCount()).toBe(0);
        expect((await app.send(delivery)).status).toBe(200);
        expect((await app.send(delivery)).status).toBe(200);
        expect(await paidCount()).toBe(1);
        expect(writer.qrisCalls).toBe(2);
      } finally {
        await app.close();
      }
    });
  },
);
