// The TypeORM binding (@kirimbayar/core/typeorm) on a real PostgreSQL server: every guarantee of transactional
// handlers (the shared transactional contract), the handler's writes in TypeORM's own idiom (a repository of the
// delivery's EntityManager), typed with no cast; and, on a real MariaDB, that an abandoned transaction's connection
// is closed so that nothing sent later through its EntityManager commits, with the pool whole afterwards.
import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { DataSource, type EntityManager, EntitySchema, type MigrationInterface, type QueryRunner } from "typeorm";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from "vitest";
import { holdTransaction } from "../src/idempotency/sql/callback-transaction.js";
import { PostgresIdempotencyStore, postgresIdempotencySchema } from "../src/postgres.js";
import { typeormBinding } from "../src/typeorm.js";
import { createWebhookReceiver, tokenVerifier, WebhookConfigurationError } from "../src/webhooks.js";
import { postgresJournalOnOwnPool } from "./support/own-journal.js";
import { startTcpProxy } from "./support/tcp-proxy.js";
import { transactionalContract } from "./support/transactional-contract.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

/** The shop's order, as a TypeORM entity (an EntitySchema: no decorators to compile). */
interface Order {
  historyId: string;
  paidCount: number;
}

const OrderEntity = new EntitySchema<Order>({
  name: "Order",
  tableName: "orders",
  columns: {
    historyId: { name: "history_id", type: String, primary: true },
    paidCount: { name: "paid_count", type: Number, default: 0 },
  },
});

/** The handler's effect in TypeORM's idiom: through a repository of the delivery's EntityManager. */
async function markPaid(manager: EntityManager, id: string): Promise<void> {
  const orders = manager.getRepository(OrderEntity);
  if (await orders.existsBy({ historyId: id })) await orders.increment({ historyId: id }, "paidCount", 1);
  else await orders.insert({ historyId: id, paidCount: 1 });
}

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

/** An initialised DataSource on PostgreSQL at `port`, with a pool of `poolSize` connections. */
async function dataSourceOn(port: number, poolSize: number): Promise<DataSource> {
  const dataSource = new DataSource({
    type: "postgres",
    host: "127.0.0.1",
    port,
    username: "postgres",
    database: "postgres",
    entities: [OrderEntity],
    poolSize,
    extra: { connectionTimeoutMillis: 1_000 },
    logging: false,
  });
  return dataSource.initialize();
}

transactionalContract<EntityManager>("TypeORM binding (TypeORM 1.1, postgres driver)", async () => {
  const poolSize = 3;
  const dataSource = await dataSourceOn(server.port, poolSize);
  const admin = new pg.Pool({ connectionString: server.url, max: 2 });
  // Reached through a relay that is cut once it is initialised: a database that went away.
  const relay = await startTcpProxy(server.port);
  const unreachable = await dataSourceOn(relay.port, 1);
  await relay.cut();
  return {
    poolSize,
    store: (table) => new PostgresIdempotencyStore({ binding: typeormBinding(dataSource), table }),
    markPaid,
    paidCount: async (id) => (await dataSource.getRepository(OrderEntity).findOneBy({ historyId: id }))?.paidCount ?? 0,
    killBackend: async (manager) => {
      const [row] = (await manager.query("SELECT pg_backend_pid() AS pid")) as { pid: number }[];
      await admin.query("SELECT pg_terminate_backend($1, 5000)", [row?.pid]);
      await vi.waitFor(
        async () => {
          const { rows } = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [row?.pid]);
          expect(rows).toHaveLength(0);
        },
        { timeout: 5_000, interval: 20 },
      );
    },
    unreachableStore: () => new PostgresIdempotencyStore({ binding: typeormBinding(unreachable) }),
    journal: (table) => postgresJournalOnOwnPool({ connectionString: server.url }, table),
    close: async () => {
      await dataSource.destroy();
      await unreachable.destroy().catch(() => {});
      await admin.end();
    },
  };
});

const TOKEN = "typeorm-token";
const quiet = { warn: () => {}, error: () => {} };
const delivery = (id: string) =>
  webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });

describe("TypeORM binding: the shop's handler in TypeORM's idiom", () => {
  it("gives handlers the delivery's EntityManager, typed: ctx.transaction.getRepository needs no cast", async () => {
    const dataSource = await dataSourceOn(server.port, 2);
    const store = new PostgresIdempotencyStore({ binding: typeormBinding(dataSource), table: "typeorm_idiom" });
    await store.ensureSchema();
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: { store, transactional: true },
      logger: quiet,
    }).on("payment.success", async (event, ctx) => {
      expectTypeOf(ctx.transaction).toEqualTypeOf<EntityManager>();
      const id = String(event.data.qris_history_id);
      await ctx.transaction.getRepository(OrderEntity).insert({ historyId: id, paidCount: 1 });
      // A nested transaction on the delivery's manager is a savepoint of the same transaction.
      await ctx.transaction.transaction((nested) =>
        nested.getRepository(OrderEntity).increment({ historyId: id }, "paidCount", 1),
      );
    });
    expect((await receiver.handle(delivery("idiom-1"))).status).toBe(200);
    expect(await dataSource.getRepository(OrderEntity).findOneBy({ historyId: "idiom-1" })).toEqual({
      historyId: "idiom-1",
      paidCount: 2,
    });
    await dataSource.destroy();
  });

  it("fails when built on a DataSource of a database it cannot serve", () => {
    // CockroachDB speaks PostgreSQL's protocol but has no advisory locks, which the transactional claim needs.
    const cockroach = new DataSource({ type: "cockroachdb", host: "127.0.0.1", port: 1, timeTravelQueries: false });
    expect(() => typeormBinding(cockroach)).toThrow(WebhookConfigurationError);
    expect(() => typeormBinding(cockroach)).toThrow(
      /expects a DataSource of type postgres, mysql, mariadb; got type cockroachdb/,
    );
  });
});

/** The README's TypeORM migration of the store's table, as a shop would add it to its migrations. */
class KirimbayarIdempotency1764201600000 implements MigrationInterface {
  async up(queryRunner: QueryRunner): Promise<void> {
    for (const statement of postgresIdempotencySchema()) await queryRunner.query(statement);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE "kirimbayar_idempotency"');
  }
}

describe("TypeORM migration of the store's table (the README's)", () => {
  it("creates the table the store uses through TypeORM's migrations, and drops it when undone", async () => {
    const dataSource = await new DataSource({
      type: "postgres",
      host: "127.0.0.1",
      port: server.port,
      username: "postgres",
      database: "postgres",
      migrations: [KirimbayarIdempotency1764201600000],
      logging: false,
    }).initialize();
    try {
      expect((await dataSource.runMigrations()).map((migration) => migration.name)).toEqual([
        "KirimbayarIdempotency1764201600000",
      ]);
      const store = new PostgresIdempotencyStore({ binding: typeormBinding(dataSource) });
      expect(await store.claim("migrated", "owner", 10_000)).toEqual({ state: "claimed", attempt: 1 });
      await dataSource.undoLastMigration();
      const [row] = await dataSource.query("SELECT to_regclass('kirimbayar_idempotency') AS present");
      expect(row.present).toBeNull();
    } finally {
      await dataSource.destroy();
    }
  });
});

describe("TypeORM binding on MariaDB: an abandoned transaction", () => {
  let mariadb: TestMariaDbServer;
  let dataSource: DataSource;

  beforeAll(async () => {
    mariadb = await startMariaDbServer();
    dataSource = await new DataSource({
      type: "mysql",
      host: "127.0.0.1",
      port: mariadb.port,
      username: "root",
      database: "kirimbayar",
      entities: [OrderEntity],
      poolSize: 2,
      logging: false,
    }).initialize();
    await dataSource.query(
      "CREATE TABLE orders (history_id varchar(64) PRIMARY KEY, paid_count integer NOT NULL DEFAULT 0)",
    );
  }, 60_000);

  afterAll(async () => {
    await dataSource?.destroy();
    await mariadb?.destroy();
  });

  it("closes its connection: a write sent later through its EntityManager is refused, nothing commits, the pool serves on", async () => {
    const binding = typeormBinding(dataSource);
    const paid = async (id: string) =>
      (await dataSource.getRepository(OrderEntity).findOneBy({ historyId: id }))?.paidCount ?? 0;
    // As many abandoned transactions as the pool has connections.
    for (const id of ["m-1", "m-2"]) {
      const held = await holdTransaction(binding);
      await markPaid(held.tx, id);
      binding.abandon(held.tx);
      await expect(markPaid(held.tx, id)).rejects.toThrow();
      await held.end(false);
      expect(await paid(id)).toBe(0);
    }
    // A write in flight when the transaction is abandoned: mysql2 ends the connection (the statement may still
    // finish), and MariaDB rolls the transaction back when it sees the connection gone: the write never commits.
    const held = await holdTransaction(binding);
    const inFlight = held.tx.query("INSERT INTO orders SELECT 'm-5', 1 FROM (SELECT SLEEP(2)) AS pause");
    inFlight.catch(() => {});
    const running = "SELECT id FROM information_schema.processlist WHERE info LIKE 'INSERT INTO orders SELECT%'";
    const threadId = await vi.waitFor(
      async () => {
        const [row] = (await dataSource.query(running)) as { id: number }[];
        expect(row).toBeDefined();
        return Number(row?.id);
      },
      { timeout: 1_500, interval: 10 },
    );
    binding.abandon(held.tx);
    await Promise.allSettled([inFlight]);
    await expect(markPaid(held.tx, "m-5")).rejects.toThrow();
    await held.end(false);
    await vi.waitFor(
      async () => {
        const rows = await dataSource.query("SELECT 1 FROM information_schema.processlist WHERE id = ?", [threadId]);
        expect(rows).toHaveLength(0);
      },
      { timeout: 5_000, interval: 20 },
    );
    expect(await paid("m-5")).toBe(0);
    // Two concurrent transactions still get a connection each and commit.
    await Promise.all(["m-3", "m-4"].map((id) => binding.transaction((manager) => markPaid(manager, id))));
    expect([await paid("m-3"), await paid("m-4")]).toEqual([1, 1]);
    expect(Number((await binding.query("SELECT COUNT(*) AS n FROM orders", [])).rows[0]?.n)).toBe(2);
  });
});
