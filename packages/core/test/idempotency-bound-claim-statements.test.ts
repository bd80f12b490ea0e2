// What a transactional claim sends through a binding on a real PostgreSQL server (TypeORM here): a new key is claimed
// in one statement, named so that TypeORM's pg connection plans it once per connection (PostgreSQL lists it among the
// connection's prepared statements); a key seen before still gets the whole claim's answer (completed, a retry's
// attempt); `preparedStatements: false` sends the statements unnamed.
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { DataSource, type EntityManager } from "typeorm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresIdempotencyStore } from "../src/postgres.js";
import { type SqlBinding, typeormBinding } from "../src/typeorm.js";

let server: TestPostgresServer;
let dataSource: DataSource;

beforeAll(async () => {
  server = await startPostgresServer();
  dataSource = new DataSource({ type: "postgres", url: server.url, poolSize: 2 });
  await dataSource.initialize();
}, 60_000);

afterAll(async () => {
  await dataSource?.destroy();
  await server?.destroy();
});

/** The binding, recording the name each statement was given (`null`: unnamed). */
function recorded(binding: SqlBinding<EntityManager>): {
  binding: SqlBinding<EntityManager>;
  names: (string | null)[];
} {
  const names: (string | null)[] = [];
  return {
    names,
    binding: {
      ...binding,
      query: (sql, params, tx, name) => {
        if (tx !== undefined) names.push(name ?? null);
        return binding.query(sql, params, tx, name);
      },
    },
  };
}

describe("the transactional claim through a binding", () => {
  it("claims a new key in one named statement, planned per connection; a seen key gets the whole claim", async () => {
    const { binding, names } = recorded(typeormBinding(dataSource));
    const store = new PostgresIdempotencyStore({ binding, table: "bound_claims" });
    await store.ensureSchema();

    const first = await store.begin();
    expect(await first.claim("qris:payment.success:1", 60_000)).toEqual({ state: "claimed", attempt: 1 });
    expect(names).toEqual([expect.stringMatching(/^kirimbayar_claimNewInTransaction_[0-9a-f]{16}$/)]);
    const prepared = await first.handle.query("SELECT name FROM pg_prepared_statements");
    expect(prepared.map((row: { name: string }) => row.name)).toContain(names[0]);
    await first.commit();

    names.length = 0;
    const duplicate = await store.begin();
    expect(await duplicate.claim("qris:payment.success:1", 60_000)).toEqual({ state: "completed" });
    await duplicate.rollback();
    expect(names).toEqual([
      expect.stringMatching(/^kirimbayar_claimNewInTransaction_/),
      expect.stringMatching(/^kirimbayar_claimInTransaction_/),
    ]);

    // A failed attempt (rolled back) leaves nothing: the retry is a new key again.
    const failed = await store.begin();
    expect(await failed.claim("qris:payment.success:2", 60_000)).toEqual({ state: "claimed", attempt: 1 });
    await failed.rollback();
    const retry = await store.begin();
    expect(await retry.claim("qris:payment.success:2", 60_000)).toEqual({ state: "claimed", attempt: 1 });
    await retry.commit();
  });

  it("counts the attempt of a key released by the non-transactional mode, through the whole claim", async () => {
    const store = new PostgresIdempotencyStore({ binding: typeormBinding(dataSource), table: "bound_claims" });
    expect(await store.claim("qris:payment.success:3", "owner-a", 60_000)).toEqual({ state: "claimed", attempt: 1 });
    expect(await store.release("qris:payment.success:3", "owner-a", 60_000)).toBe(true);
    const transaction = await store.begin();
    expect(await transaction.claim("qris:payment.success:3", 60_000)).toEqual({ state: "claimed", attempt: 2 });
    await transaction.commit();
  });

  it("fails a claim (never answers it completed) when the binding reports neither the new key's row nor a count", async () => {
    const binding = typeormBinding(dataSource);
    const silent: SqlBinding<EntityManager> = {
      ...binding,
      query: async (sql, params, tx, name) => {
        const result = await binding.query(sql, params, tx, name);
        return name?.startsWith("kirimbayar_claimNewInTransaction_") ? { rows: [] } : result;
      },
    };
    const store = new PostgresIdempotencyStore({ binding: silent, table: "bound_claims" });
    const transaction = await store.begin();
    await expect(transaction.claim("qris:payment.success:5", 60_000)).rejects.toMatchObject({
      name: "IdempotencyStoreUnavailableError",
      cause: { message: expect.stringContaining("typeorm answered neither the claim's row nor its count") },
    });
    await transaction.rollback();
  });

  it("sends the statements unnamed with preparedStatements: false", async () => {
    const { binding, names } = recorded(typeormBinding(dataSource));
    const store = new PostgresIdempotencyStore({ binding, table: "bound_claims", preparedStatements: false });
    const transaction = await store.begin();
    expect(await transaction.claim("qris:payment.success:4", 60_000)).toEqual({ state: "claimed", attempt: 1 });
    await transaction.commit();
    expect(names).toEqual([null]);
  });
});
