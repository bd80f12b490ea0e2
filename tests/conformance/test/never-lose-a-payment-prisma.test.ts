// The never-lose campaign (test/support/never-lose-campaign.ts) through Prisma 7 (@prisma/adapter-pg) on a real
// PostgreSQL (issue 27): each app instance has its own PrismaClient, its store reaches the database through
// prismaBinding, and the handler writes in Prisma's idiom on the interactive transaction client it gets as
// `ctx.transaction` (`tx.campaignOrder.update(...)`, typed, no cast). "Between effect and commit" is the transaction's
// backend terminated from outside, its pid read through `tx.$queryRaw` in the handler.
import { PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { type PrismaTransactionClient, prismaBinding } from "@kirimbayar/core/prisma";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, it } from "vitest";
import { PrismaClient } from "../prisma/generated/client.js";
import { type CampaignDatabase, campaignTitle, runNeverLoseCampaign } from "./support/never-lose-campaign.js";
import { CAMPAIGN_STORE_TABLE, postgresCampaignParts } from "./support/never-lose-postgres.js";

type Tx = PrismaTransactionClient<PrismaClient>;

let server: TestPostgresServer;
const pools: pg.Pool[] = [];
const clients: PrismaClient[] = [];

beforeAll(async () => {
  server = await startPostgresServer();
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((client) => client.$disconnect().catch(() => {})));
  await Promise.all(pools.map((pool) => pool.end().catch(() => {})));
  await server?.destroy();
});

function newPool(max: number): pg.Pool {
  const pool = new pg.Pool({ connectionString: server.url, max, connectionTimeoutMillis: 1_000 });
  pool.on("error", () => {});
  pools.push(pool);
  return pool;
}

function throughPrisma(): CampaignDatabase<Tx> {
  const parts = postgresCampaignParts(server, newPool(2));
  return {
    ...parts,
    label: "prisma",
    // Prisma compiles a query the first time it sees it: on a loaded machine an ordinary delivery can take 300 ms.
    handlerTimeoutMs: 1_000,
    instanceStore: async () => {
      const prisma = new PrismaClient({ adapter: new PrismaPg(newPool(5)) });
      clients.push(prisma);
      return new PostgresIdempotencyStore({ binding: prismaBinding(prisma), table: CAMPAIGN_STORE_TABLE });
    },
    markPaid: (tx, id) => tx.campaignOrder.update({ where: { historyId: id }, data: { paidCount: { increment: 1 } } }),
    killBackend: async (tx) => {
      const [row] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      await parts.terminate(row?.pid);
    },
  };
}

it(campaignTitle({ outage: "stop" }), () => runNeverLoseCampaign(throughPrisma()), 600_000);
