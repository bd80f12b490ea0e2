// The NestJS shop journals into its own database through the same TypeORM DataSource as its orders and idempotency
// records (issue 38's "NestJS + TypeORM + MariaDB shop built from the docs"): a payment webhook's journal entry is a
// statement of the delivery's own transaction, so it commits with the order update. The database server says so:
// on PostgreSQL a trigger notes the transaction id of the entry's INSERT and of the order's update to paid, which must
// be one; on MariaDB the general log must show the entry inserted on the connection of the order's update, after it
// and before that transaction's COMMIT, with no other transaction boundary in between. The duplicate delivery's entry
// is written after its answer, in a transaction of its own.
import "reflect-metadata";
import { loadShopConfig, type Order, webhookUrls } from "@kirimbayar/example-shop-domain";
import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { createFakeProvider, type FakeProvider, type RunningServer } from "@kirimbayar/testing";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { fakeProviderEnv } from "../../shop-domain/test/support/shop-flow.js";
import type { ShopDatabase } from "../src/database/shop-database.js";
import { type RunningShop, startShop } from "../src/server.js";
import { SHOP_DATABASE } from "../src/tokens.js";

let postgres: TestPostgresServer | undefined;
let mariadb: TestMariaDbServer | undefined;
afterAll(async () => {
  await postgres?.destroy();
  await mariadb?.destroy();
}, 60_000);

/** What the server saw of the order's update to paid and of each journal entry's insert, as comparable strings. */
interface Observed {
  /** The transaction (PostgreSQL) or connection + position of the transaction (MariaDB) of the order update. */
  readonly orderUpdate: string | undefined;
  /** The same for each journal insert of the payment, by outcome. */
  readonly entries: Record<string, string>;
}

interface Database {
  readonly name: string;
  /** A fresh database on the server: its URL, and how to watch the shop's statements once its tables exist. */
  create(): Promise<{
    url: string;
    watch(): Promise<void>;
    observed(orderId: string, historyId: string): Promise<Observed>;
  }>;
}

let databases = 0;
const postgresDatabase: Database = {
  name: "PostgreSQL",
  async create() {
    postgres ??= await startPostgresServer();
    const name = `journal_shop_${++databases}`;
    const admin = new pg.Client({ connectionString: postgres.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = postgres.url.replace(/\/postgres$/, `/${name}`);
    const db = new pg.Client({ connectionString: url });
    return {
      url,
      async watch() {
        await db.connect();
        await db.query("CREATE TABLE seen (what text, id text, txid bigint)");
        await db.query(`CREATE FUNCTION note_entry() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
          INSERT INTO seen VALUES ('entry ' || NEW.outcome, NEW.qris_history_id, txid_current()); RETURN NEW; END $$`);
        await db.query(
          "CREATE TRIGGER note_entry BEFORE INSERT ON shop_webhook_journal FOR EACH ROW EXECUTE FUNCTION note_entry()",
        );
        await db.query(`CREATE FUNCTION note_paid() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
          INSERT INTO seen VALUES ('paid', NEW.id, txid_current()); RETURN NEW; END $$`);
        await db.query(`CREATE TRIGGER note_paid BEFORE UPDATE ON shop_orders FOR EACH ROW
          WHEN (OLD.awaiting_payment AND NOT NEW.awaiting_payment) EXECUTE FUNCTION note_paid()`);
      },
      async observed(orderId, historyId) {
        const { rows } = await db.query<{ what: string; id: string; txid: string }>(
          "SELECT what, id, txid::text FROM seen WHERE id IN ($1, $2)",
          [orderId, historyId],
        );
        await db.end();
        const entries: Record<string, string> = {};
        for (const row of rows) if (row.what.startsWith("entry ")) entries[row.what.slice(6)] = `tx ${row.txid}`;
        const paid = rows.filter((row) => row.what === "paid");
        expect(paid).toHaveLength(1);
        return { orderUpdate: paid[0] && `tx ${paid[0].txid}`, entries };
      },
    };
  },
};

const mariadbDatabase: Database = {
  name: "MariaDB",
  async create() {
    mariadb ??= await startMariaDbServer();
    const name = `journal_shop_${++databases}`;
    const admin = await mysql.createConnection(mariadb.url);
    await admin.query(`CREATE DATABASE ${name}`);
    // Every statement of every connection, in a table the test can read.
    await admin.query("SET GLOBAL log_output = 'TABLE'");
    await admin.query("SET GLOBAL general_log = 'ON'");
    return {
      url: mariadb.url.replace(/\/[^/]*$/, `/${name}`),
      async watch() {},
      async observed(orderId, historyId) {
        await admin.query("SET GLOBAL general_log = 'OFF'");
        const [rows] = await admin.query(
          // In the order the server wrote them.
          "SELECT thread_id AS thread, command_type AS command, CONVERT(argument USING utf8mb4) AS argument FROM mysql.general_log",
        );
        await admin.query("TRUNCATE mysql.general_log");
        await admin.end();
        const log = rows as { thread: number; command: string; argument: string }[];
        // Each journal insert of the payment: which transaction of which connection it was part of (the connection's
        // statements since its last transaction boundary), and the order update to paid in the same way.
        const transactionOf = (index: number) => {
          const thread = log[index]?.thread;
          let start = index;
          while (start > 0) {
            const previous = log[start - 1] as (typeof log)[number];
            if (previous.thread === thread && /^(START TRANSACTION|BEGIN|COMMIT|ROLLBACK)/i.test(previous.argument))
              break;
            start--;
          }
          const end = log.findIndex((line, i) => i > index && line.thread === thread && /^COMMIT/i.test(line.argument));
          return { thread, start, end };
        };
        const entries: Record<string, string> = {};
        let orderUpdate: string | undefined;
        log.forEach((line, index) => {
          if (!/^(Query|Execute)$/.test(line.command)) return;
          const { thread, start, end } = transactionOf(index);
          const transaction = `connection ${thread}, statements ${start}..${end}`;
          if (line.argument.startsWith("INSERT INTO `shop_webhook_journal`") && line.argument.includes(historyId)) {
            const outcome = /'(processed|duplicate|in_progress|failed)'/.exec(line.argument)?.[1] ?? "unknown";
            entries[outcome] = transaction;
          }
          if (
            line.argument.startsWith("UPDATE `shop_orders`") &&
            line.argument.includes(orderId) &&
            line.argument.includes('\\"paid\\"')
          ) {
            orderUpdate = transaction;
          }
        });
        return { orderUpdate, entries };
      },
    };
  },
};

const cart = {
  customer: { name: "Sari Wulandari", email: "sari@example.test", phone: "081234567890" },
  items: [{ name: "Kopi Gayo 250 g", quantity: 2, price: 85_000, weight: 250 }],
};

describe.each([postgresDatabase, mariadbDatabase])("the NestJS shop's journal on $name", (database) => {
  it("writes a paid webhook's entry in the delivery's own transaction, with the order update", async () => {
    const { url, watch, observed } = await database.create();
    const provider: FakeProvider = createFakeProvider();
    const server: RunningServer = await provider.listen();
    const config = loadShopConfig({ ...fakeProviderEnv(provider, server.url), DATABASE_URL: url });
    let shop: RunningShop | undefined;
    try {
      shop = await startShop(config, { logger: false });
      provider.qris.setWebhookUrl(webhookUrls(shop.url, config.webhookSecret).qris);
      await watch();
      const call = async (path: string, body?: unknown) => {
        const response = await fetch(`${shop?.url}${path}`, {
          method: body === undefined ? "GET" : "POST",
          ...(body === undefined
            ? {}
            : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
        });
        return (await response.json()) as { data: unknown };
      };
      const destinations = (await call("/shipping/destinations?search=braga")).data as { id: number }[];
      const created = (await call("/orders", {
        ...cart,
        destination_id: destinations[0]?.id,
        courier: "sicepat",
        service: "REG",
      })) as { data: { order: Order } };
      const { order } = created.data;
      const payment = order.payments[0];
      if (payment?.method !== "qris") throw new Error("expected a QRIS payment");

      provider.webhooks.duplicateNext(1);
      await provider.qris.pay(payment.history_id);
      await provider.webhooks.settled();
      const deliveries = provider.deliveries.filter((delivery) => delivery.event === "payment.success");
      expect(deliveries.map((delivery) => delivery.status)).toEqual([200, 200]);
      expect(((await call(`/orders/${order.id}`)) as { data: Order }).data.status).toBe("paid");

      const { journal } = shop.app.get<ShopDatabase>(SHOP_DATABASE);
      await journal.flush();
      const entries = await journal.search({ reference: payment.history_id });
      expect(entries.map((entry) => entry.outcome).sort()).toEqual(["duplicate", "processed"]);

      const seen = await observed(order.id, payment.history_id);
      expect(seen.orderUpdate).toBeDefined();
      // The processed entry went in with the order's update to paid, in that delivery's transaction ...
      expect(seen.entries.processed).toBe(seen.orderUpdate);
      // ... and the duplicate's after its answer, in another.
      expect(seen.entries.duplicate).toBeDefined();
      expect(seen.entries.duplicate).not.toBe(seen.orderUpdate);
    } finally {
      await shop?.close();
      await server.close();
    }
  });
});
