import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolvePostgresBinDir, startPostgresServer, type TestPostgresServer } from "../index.js";

let server: TestPostgresServer;

beforeAll(async () => {
  server = await startPostgresServer();
}, 60_000);

afterAll(async () => {
  await server?.destroy();
});

describe("startPostgresServer", () => {
  it("finds server binaries and runs a server on loopback that answers SQL", async () => {
    expect((await resolvePostgresBinDir()).path).toMatch(/bin$/);
    expect(server.url).toBe(`postgres://postgres@127.0.0.1:${server.port}/postgres`);
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    const { rows } = await client.query("SELECT 40 + 2 AS answer, current_user AS who");
    expect(rows[0]).toEqual({ answer: 42, who: "postgres" });
    await client.end();
  });

  it("keeps committed data across a crash (SIGKILL) and a restart", async () => {
    const client = new pg.Client({ connectionString: server.url });
    client.on("error", () => {});
    await client.connect();
    await client.query("CREATE TABLE survives (n int)");
    await client.query("INSERT INTO survives VALUES (7)");
    await client.end().catch(() => {});
    await server.crash();
    await server.start();
    const again = new pg.Client({ connectionString: server.url });
    again.on("error", () => {});
    await again.connect();
    expect((await again.query("SELECT n FROM survives")).rows).toEqual([{ n: 7 }]);
    await again.end();
  }, 60_000);
});
