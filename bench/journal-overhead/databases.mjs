// The databases of the journal benchmarks (run.mjs, cpu.mjs): a PostgreSQL and a redis-server on loopback ports,
// with the idempotency tables (one per mode) and the journal table created.
import { startPostgresServer } from "@kirimbayar/test-postgres-server";
import { startRedisServer } from "@kirimbayar/test-redis-server";
import pg from "pg";

/**
 * Starts both servers and creates the tables. Resolves to `{ targetOf(route), stop() }`: `targetOf` gives the
 * server arguments of a route (none for memory routes, the Redis port, or the PostgreSQL URL).
 */
export async function startJournalDatabases() {
  const postgres = await startPostgresServer();
  let redis;
  try {
    redis = await startRedisServer();
    const setup = new pg.Client({ connectionString: postgres.url });
    await setup.connect();
    try {
      const { PostgresDeliveryJournal, PostgresIdempotencyStore } = await import("@kirimbayar/core/postgres");
      for (const kind of ["postgres", "postgres_transactional"]) {
        await new PostgresIdempotencyStore({
          client: setup,
          table: `bench_journal_idempotency_${kind}`,
        }).ensureSchema();
      }
      await new PostgresDeliveryJournal({ client: setup, table: "bench_delivery_journal" }).ensureSchema();
    } finally {
      await setup.end();
    }
  } catch (error) {
    await redis?.stop();
    await postgres.destroy();
    throw error;
  }
  return {
    targetOf: (route) =>
      route.startsWith("memory") ? [] : route.startsWith("redis") ? [String(redis.port)] : [postgres.url],
    async stop() {
      await redis.stop();
      await postgres.destroy();
    },
  };
}
