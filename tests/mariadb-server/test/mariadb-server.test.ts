import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveMariaDbBinaries, startMariaDbServer, type TestMariaDbServer } from "../index.js";

let server: TestMariaDbServer;

beforeAll(async () => {
  server = await startMariaDbServer();
}, 60_000);

afterAll(async () => {
  await server?.destroy();
});

async function connect() {
  const connection = await mysql.createConnection({ uri: server.url, connectTimeout: 5_000 });
  connection.on("error", () => {});
  return connection;
}

describe("startMariaDbServer", () => {
  it("finds the binaries and runs a durable server on loopback, database kirimbayar, as the mysql user", async () => {
    expect((await resolveMariaDbBinaries()).server).toMatch(/mariadbd$/);
    expect(server.url).toBe(`mysql://root@127.0.0.1:${server.port}/kirimbayar`);
    const connection = await connect();
    const [rows] = await connection.query(
      "SELECT 40 + 2 AS answer, DATABASE() AS db, @@innodb_flush_log_at_trx_commit AS flush, @@log_bin AS binlog, @@bind_address AS bound, VERSION() AS version",
    );
    expect((rows as Record<string, unknown>[])[0]).toMatchObject({
      answer: 42,
      db: "kirimbayar",
      flush: 1,
      binlog: 0,
      bound: "127.0.0.1",
    });
    expect(String((rows as Record<string, unknown>[])[0]?.version)).toMatch(/MariaDB/);
    await connection.end();
  });

  it("keeps committed data across a crash (SIGKILL) and a restart, and loses the uncommitted", async () => {
    const connection = await connect();
    await connection.query("CREATE TABLE survives (n int) ENGINE=InnoDB");
    await connection.query("INSERT INTO survives VALUES (7)");
    await connection.query("BEGIN");
    await connection.query("INSERT INTO survives VALUES (8)");
    await server.crash();
    await connection.end().catch(() => {});
    await server.start();
    const again = await connect();
    const [rows] = await again.query("SELECT n FROM survives");
    expect(rows).toEqual([{ n: 7 }]);
    await again.end();
  }, 60_000);

  it("freezes (connections open, no answers) and thaws", async () => {
    const connection = await connect();
    server.freeze();
    let answered = false;
    const pending = connection.query("SELECT 1 AS one").then(() => {
      answered = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(answered).toBe(false);
    server.thaw();
    await pending;
    expect(answered).toBe(true);
    await connection.end();
  });
});
