import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolvePgBouncerBin, startPgBouncer, type TestPgBouncer } from "../index.js";

let postgres: TestPostgresServer;
const started: TestPgBouncer[] = [];

beforeAll(async () => {
  postgres = await startPostgresServer();
}, 60_000);

afterAll(async () => {
  for (const bouncer of started) await bouncer.destroy();
  await postgres?.destroy();
});

async function bouncerIn(poolMode: "transaction" | "session", poolSize = 1): Promise<TestPgBouncer> {
  const bouncer = await startPgBouncer(postgres, { poolMode, poolSize });
  started.push(bouncer);
  return bouncer;
}

async function connected(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on("error", () => {});
  await client.connect();
  return client;
}

const named = { name: "harness_probe", text: "SELECT 40 + 2 AS answer" };

describe("startPgBouncer", () => {
  it("finds the binary and refuses a call without a server", async () => {
    expect(resolvePgBouncerBin()).toMatch(/pgbouncer$/);
    await expect(startPgBouncer(undefined as never)).rejects.toThrow(/PostgreSQL server/);
    await expect(startPgBouncer(postgres, { poolMode: "statement" as never })).rejects.toThrow(/poolMode/);
  });

  it("transaction mode: two clients share one server connection, so a named statement of one collides (42P05)", async () => {
    const bouncer = await bouncerIn("transaction");
    expect(bouncer.url).toBe(`postgres://postgres@127.0.0.1:${bouncer.port}/postgres`);
    const a = await connected(bouncer.url);
    const b = await connected(bouncer.url);
    try {
      const pids = new Set([
        (await a.query("SELECT pg_backend_pid() AS pid")).rows[0].pid,
        (await b.query("SELECT pg_backend_pid() AS pid")).rows[0].pid,
      ]);
      expect(pids.size).toBe(1); // one server connection (poolSize 1) for both clients
      expect((await a.query(named)).rows).toEqual([{ answer: 42 }]);
      await expect(b.query(named)).rejects.toMatchObject({ code: "42P05" });
      // Plain (unnamed) statements are what transaction mode serves.
      expect((await b.query(named.text)).rows).toEqual([{ answer: 42 }]);
    } finally {
      await a.end();
      await b.end();
    }
  });

  it("session mode: a client keeps its server connection; the next client gets it reset (DISCARD ALL)", async () => {
    const bouncer = await bouncerIn("session");
    const a = await connected(bouncer.url);
    expect((await a.query(named)).rows).toEqual([{ answer: 42 }]);
    expect((await a.query(named)).rows).toEqual([{ answer: 42 }]);
    await a.end();
    const b = await connected(bouncer.url);
    try {
      expect((await b.query(named)).rows).toEqual([{ answer: 42 }]);
    } finally {
      await b.end();
    }
  });

  it("crash() drops every connection through it; start() serves again on the same port, committed data kept", async () => {
    const bouncer = await bouncerIn("transaction", 2);
    const client = await connected(bouncer.url);
    await client.query("CREATE TABLE harness_kept (n int)");
    await client.query("INSERT INTO harness_kept VALUES (7)");
    await client.query("BEGIN");
    await client.query("INSERT INTO harness_kept VALUES (8)");
    await bouncer.crash();
    expect(bouncer.running).toBe(false);
    await expect(client.query("SELECT 1")).rejects.toThrow();
    await bouncer.start();
    expect(bouncer.running).toBe(true);
    const again = await connected(bouncer.url);
    try {
      // The transaction open at the crash rolled back: its server connection closed with PgBouncer.
      await expect
        .poll(async () => (await again.query("SELECT n FROM harness_kept ORDER BY n")).rows, { timeout: 5_000 })
        .toEqual([{ n: 7 }]);
    } finally {
      await again.end();
    }
  }, 30_000);
});
