// One order-status webhook app for the transactional-routes and mysql-vs-memory benchmarks: Express 5, the route
// given by the command line (`<kind> <database url>`), the same request and answer for every kind. Library routes
// (`@kirimbayar/express`, the order-status receiver, token verification) with `idempotency: { store, transactional:
// true }`, whose handler writes one row into `effects` through `ctx.transaction` in its library's idiom:
//   pg             PostgresIdempotencyStore({ pool })                           ctx.transaction.query(...)
//   prisma         PostgresIdempotencyStore({ binding: prismaBinding(prisma) }) ctx.transaction.effect.create(...)
//   typeorm        PostgresIdempotencyStore({ binding: typeormBinding(ds) })    ctx.transaction.insert(Effect, ...)
//   mysql-transactional  MysqlIdempotencyStore({ pool }) (mysql2)               ctx.transaction.execute(...)
// Each has a hand-rolled twin (`<kind>-hand`, `mysql-hand`): the same checks written directly (token compared in
// constant time, JSON.parse, the receiver's zod schema for the event, the receiver's key), then one transaction with
// the same library: the key into `processed_events` unless there (a duplicate is answered 200 at once), the same
// effect row, commit; 409 on a conflict or lock error, 500 on any other. Non-transactional routes with a no-op
// handler: `memory` (MemoryIdempotencyStore) and `mysql` (MysqlIdempotencyStore over a mysql2 pool).
// Every library gets a pool of 10 connections. Prints `ready <port>` once listening; stops on SIGTERM.
import { timingSafeEqual } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  createWebhookReceiver,
  MemoryIdempotencyStore,
  orderStatusWebhookSchema,
  tokenVerifier,
} from "@kirimbayar/core/webhooks";
import { createWebhookRouter } from "@kirimbayar/express";
import express from "express";
import { ORDERS_ROUTE_TOKEN } from "./orders-route-token.mjs";

const here = dirname(fileURLToPath(import.meta.url));
/** Where bench/transactional-routes/run.mjs compiles the generated Prisma client (the same path there). */
const PRISMA_CLIENT = join(here, "../.out/transactional-routes/prisma-client/client.js");
const POOL_SIZE = 10;
const EFFECT_PG = "INSERT INTO effects (event_key, order_no, status) VALUES ($1, $2, $3)";
const EFFECT_MYSQL = "INSERT INTO effects (event_key, order_no, status) VALUES (?, ?, ?)";

const [kind, url] = process.argv.slice(2);

/** The pieces of one route kind: a receiver's store and handler, or a hand-rolled transaction. */
async function build() {
  switch (kind) {
    case "memory":
      return { store: new MemoryIdempotencyStore(), transactional: false, handler: async () => {} };
    case "pg":
    case "pg-hand": {
      const { default: pg } = await import("pg");
      const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
      pool.on("error", () => {});
      if (kind === "pg-hand") return { transact: (key, event) => pgTransaction(pool, key, event) };
      const { PostgresIdempotencyStore } = await import("@kirimbayar/core/postgres");
      return {
        store: new PostgresIdempotencyStore({ pool }),
        transactional: true,
        handler: async (event, ctx) => {
          await ctx.transaction.query(EFFECT_PG, [ctx.idempotencyKey, String(event.order_no), event.status]);
        },
      };
    }
    case "prisma":
    case "prisma-hand": {
      const { PrismaPg } = await import("@prisma/adapter-pg");
      const { PrismaClient } = await import(PRISMA_CLIENT);
      const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: POOL_SIZE }) });
      await prisma.$connect();
      if (kind === "prisma-hand") return { transact: (key, event) => prismaTransaction(prisma, key, event) };
      const { PostgresIdempotencyStore } = await import("@kirimbayar/core/postgres");
      const { prismaBinding } = await import("@kirimbayar/core/prisma");
      return {
        store: new PostgresIdempotencyStore({ binding: prismaBinding(prisma) }),
        transactional: true,
        handler: async (event, ctx) => {
          await ctx.transaction.effect.create({
            data: { eventKey: ctx.idempotencyKey, orderNo: String(event.order_no), status: event.status },
          });
        },
      };
    }
    case "typeorm":
    case "typeorm-hand": {
      const { DataSource, EntitySchema } = await import("typeorm");
      const Effect = new EntitySchema({
        name: "Effect",
        tableName: "effects",
        columns: {
          eventKey: { name: "event_key", type: "text", primary: true },
          orderNo: { name: "order_no", type: "text" },
          status: { type: "text" },
        },
      });
      const dataSource = new DataSource({ type: "postgres", url, poolSize: POOL_SIZE, entities: [Effect] });
      await dataSource.initialize();
      if (kind === "typeorm-hand") {
        return { transact: (key, event) => typeormTransaction(dataSource, Effect, key, event) };
      }
      const { PostgresIdempotencyStore } = await import("@kirimbayar/core/postgres");
      const { typeormBinding } = await import("@kirimbayar/core/typeorm");
      return {
        store: new PostgresIdempotencyStore({ binding: typeormBinding(dataSource) }),
        transactional: true,
        handler: async (event, ctx) => {
          await ctx.transaction.insert(Effect, {
            eventKey: ctx.idempotencyKey,
            orderNo: String(event.order_no),
            status: event.status,
          });
        },
      };
    }
    case "mysql":
    case "mysql-transactional":
    case "mysql-hand": {
      const { default: mysql } = await import("mysql2/promise");
      const pool = mysql.createPool({ uri: url, connectionLimit: POOL_SIZE });
      if (kind === "mysql-hand") return { transact: (key, event) => mysqlTransaction(pool, key, event) };
      const { MysqlIdempotencyStore } = await import("@kirimbayar/core/mysql");
      if (kind === "mysql") {
        // A table per mode, so that one mode's rows do not weigh on the other's rounds.
        const store = new MysqlIdempotencyStore({ pool, table: "kirimbayar_idempotency_plain" });
        return { store, transactional: false, handler: async () => {} };
      }
      return {
        store: new MysqlIdempotencyStore({ pool }),
        transactional: true,
        handler: async (event, ctx) => {
          await ctx.transaction.execute(EFFECT_MYSQL, [ctx.idempotencyKey, String(event.order_no), event.status]);
        },
      };
    }
    default:
      throw new Error(`unknown route kind ${kind}`);
  }
}

// The hand-rolled transactions: "processed" or "duplicate", or a rejection (the route answers 409 or 500).

async function pgTransaction(pool, key, event) {
  const client = await pool.connect();
  let broken;
  try {
    await client.query("BEGIN");
    const claimed = await client.query("INSERT INTO processed_events (event_key) VALUES ($1) ON CONFLICT DO NOTHING", [
      key,
    ]);
    if (claimed.rowCount === 0) {
      await client.query("COMMIT");
      return "duplicate";
    }
    await client.query(EFFECT_PG, [key, String(event.order_no), event.status]);
    await client.query("COMMIT");
    return "processed";
  } catch (error) {
    await client.query("ROLLBACK").catch((rollbackError) => {
      broken = rollbackError;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

async function prismaTransaction(prisma, key, event) {
  // Prisma's own time limits as the binding sets them (its 2 s default wait for a connection would fail deliveries
  // that queue for the pool of 10 under 50 connections of load).
  return prisma.$transaction(
    async (tx) => {
      const claimed =
        await tx.$executeRaw`INSERT INTO processed_events (event_key) VALUES (${key}) ON CONFLICT DO NOTHING`;
      if (claimed === 0) return "duplicate";
      await tx.effect.create({ data: { eventKey: key, orderNo: String(event.order_no), status: event.status } });
      return "processed";
    },
    { maxWait: 5_000, timeout: 600_000 },
  );
}

async function typeormTransaction(dataSource, Effect, key, event) {
  return dataSource.transaction(async (manager) => {
    const claimed = await manager.query(
      "INSERT INTO processed_events (event_key) VALUES ($1) ON CONFLICT DO NOTHING RETURNING event_key",
      [key],
    );
    if (claimed.length === 0) return "duplicate";
    await manager.insert(Effect, { eventKey: key, orderNo: String(event.order_no), status: event.status });
    return "processed";
  });
}

async function mysqlTransaction(pool, key, event) {
  const connection = await pool.getConnection();
  let broken = false;
  try {
    await connection.query("START TRANSACTION");
    const [claimed] = await connection.execute("INSERT IGNORE INTO processed_events (event_key) VALUES (?)", [key]);
    if (claimed.affectedRows === 0) {
      await connection.query("COMMIT");
      return "duplicate";
    }
    await connection.execute(EFFECT_MYSQL, [key, String(event.order_no), event.status]);
    await connection.query("COMMIT");
    return "processed";
  } catch (error) {
    await connection.query("ROLLBACK").catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    if (broken) connection.destroy();
    else connection.release();
  }
}

// Conflicts a hand-rolled route answers 409 (the sender retries later): unique violation, lock not available,
// serialization failure, deadlock (PostgreSQL SQLSTATEs; MySQL's error numbers).
const CONFLICTS = new Set(["23505", "55P03", "40001", "40P01", 1062, 1205, 1213]);
const isConflict = (error) => CONFLICTS.has(error?.code) || CONFLICTS.has(error?.errno);

const expectedToken = Buffer.from(ORDERS_ROUTE_TOKEN);
const keyPart = (part) => {
  const text = String(part);
  return text.includes(":") || text.includes("%") ? encodeURIComponent(text) : text;
};

/** The hand-rolled route: the receiver's checks written directly, then the transaction. */
function handRolledRoute(transact) {
  return async (req, res) => {
    const given = Buffer.from(typeof req.query.token === "string" ? req.query.token : "");
    if (given.length !== expectedToken.length || !timingSafeEqual(given, expectedToken)) {
      res.status(401).json({ success: false, message: "unauthorized" });
      return;
    }
    let json;
    try {
      json = JSON.parse(Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "");
    } catch {
      res.status(400).json({ success: false, message: "invalid JSON" });
      return;
    }
    const parsed = orderStatusWebhookSchema.safeParse(json);
    if (!parsed.success) {
      res.status(400).json({ success: false, message: "invalid payload" });
      return;
    }
    const event = parsed.data;
    const key = `orders:${keyPart(event.order_no)}:${keyPart(event.cnote)}:${keyPart(event.status)}`;
    try {
      const outcome = await transact(key, event);
      res.status(200).json({ success: true, message: outcome });
    } catch (error) {
      if (isConflict(error)) res.status(409).json({ success: false, message: "in progress" });
      else res.status(500).json({ success: false, message: "failed" });
    }
  };
}

const route = await build();
const app = express();
if (route.transact !== undefined) {
  app.post(
    "/webhooks/orders",
    express.raw({ type: "application/json", limit: "64kb" }),
    handRolledRoute(route.transact),
  );
} else {
  const orders = createWebhookReceiver({
    source: "orders",
    verify: [tokenVerifier({ secrets: [ORDERS_ROUTE_TOKEN], in: "query", name: "token" })],
    idempotency: { store: route.store, transactional: route.transactional },
  });
  orders.on("order.status", route.handler);
  app.use("/webhooks", createWebhookRouter({ orders }));
}
const server = app.listen(0, "127.0.0.1", () => {
  console.log(`ready ${server.address().port}`);
});
// Deliveries cut off by the end of the load run are still running: the pools go with the process rather than being
// ended under them (which would log every such delivery's "pool closed" failure).
process.on("SIGTERM", () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
