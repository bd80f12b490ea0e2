// The graceful shutdown (issue 37) on a real redis-server and a real PostgreSQL, and the Node server steps over real
// keep-alive connections: after the shutdown, no key of the process is left in progress in the store itself, and
// a second instance applies the retry at once.
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect } from "node:net";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import IORedis from "ioredis";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PostgresIdempotencyStore } from "../../src/postgres.js";
import { RedisIdempotencyStore } from "../../src/redis.js";
import { createGracefulShutdown, nodeServerSteps } from "../../src/shutdown.js";
import { createWebhookReceiver, type IdempotencyStore, tokenVerifier } from "../../src/webhooks.js";
import { qrisSuccess, webhookRequest } from "../support/webhook-requests.js";

const TOKEN = "real-shutdown-token";
const quiet = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const delivery = (id: string) =>
  webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });
const keyOf = (id: string) => `qris:payment.success:${id}`;

let redis: TestRedisServer;
let postgres: TestPostgresServer;
let redisClient: IORedis;
let pool: pg.Pool;

beforeAll(async () => {
  [redis, postgres] = await Promise.all([startRedisServer(), startPostgresServer()]);
  redisClient = new IORedis(redis.port, "127.0.0.1", { lazyConnect: true, enableOfflineQueue: false });
  await redisClient.connect();
  pool = new pg.Pool({ connectionString: postgres.url, max: 6 });
  pool.on("error", () => {});
  await pool.query("CREATE TABLE effects (id text NOT NULL)");
}, 60_000);

afterAll(async () => {
  redisClient?.disconnect();
  await pool?.end();
  await Promise.all([redis?.stop(), postgres?.destroy()]);
});

function qrisReceiver(store: IdempotencyStore, handler: (id: string) => Promise<void>, transactional = false) {
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
    idempotency: { store, transactional },
    logger: quiet,
  });
  receiver.on("payment.success", (event) => handler(String(event.data.qris_history_id)));
  return receiver;
}

describe("on a real redis-server", () => {
  it("releases the claim of a delivery still running, so the other instance applies its retry at once", async () => {
    const store = new RedisIdempotencyStore({ client: redisClient, keyPrefix: "shutdown:" });
    const shutdown = createGracefulShutdown({ graceMs: 200, logger: quiet });
    const leaving = qrisReceiver(shutdown.track(store), async () => {
      await sleep(3_000);
    });
    const running = leaving.handle(delivery("r-1"));
    await sleep(50);
    expect(await redisClient.get(`shutdown:{${keyOf("r-1")}}`)).toMatch(/^p:/);

    const report = await shutdown.run();
    expect(report).toMatchObject({ released: 1, releaseFailed: 0 });
    // The store itself: no record in progress, one failed attempt counted.
    expect(await redisClient.get(`shutdown:{${keyOf("r-1")}}`)).toBeNull();
    const applied: string[] = [];
    const staying = qrisReceiver(store, async (id) => {
      applied.push(id);
    });
    expect((await staying.handle(delivery("r-1"))).status).toBe(200);
    expect(applied).toEqual(["r-1"]);
    void running;
  });
});

describe("on a real PostgreSQL", () => {
  it("transactional: ends the open transaction without commit, and the retry is applied at once elsewhere", async () => {
    const store = new PostgresIdempotencyStore({ pool, table: "shutdown_tx" });
    await store.ensureSchema();
    const shutdown = createGracefulShutdown({ graceMs: 200, logger: quiet });
    const slowEffect = async (id: string, transaction: pg.PoolClient) => {
      await sleep(1_500);
      await transaction.query("INSERT INTO effects (id) VALUES ($1)", [id]);
    };
    const leaving = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
      idempotency: { store: shutdown.track(store), transactional: true },
      logger: quiet,
    });
    leaving.on("payment.success", (event, ctx) =>
      slowEffect(String(event.data.qris_history_id), ctx.transaction as pg.PoolClient),
    );
    const running = leaving.handle(delivery("t-1"));
    await sleep(100);
    const report = await shutdown.run();
    expect(report).toMatchObject({ rolledBack: 1 });

    // No session of the leaving instance still holds the key: the other instance claims it without waiting.
    const staying = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: [TOKEN], in: "query", name: "token" })],
      idempotency: { store, transactional: true },
      logger: quiet,
    });
    staying.on("payment.success", async (event, ctx) => {
      await (ctx.transaction as pg.PoolClient).query("INSERT INTO effects (id) VALUES ($1)", [
        String(event.data.qris_history_id),
      ]);
    });
    const startedAt = performance.now();
    expect((await staying.handle(delivery("t-1"))).status).toBe(200);
    expect(performance.now() - startedAt).toBeLessThan(1_000);
    expect((await running).status).toBe(500);
    await sleep(1_600);
    const { rows } = await pool.query("SELECT id FROM effects WHERE id = 't-1'");
    expect(rows).toHaveLength(1);
  });

  it("non-transactional: the row of a delivery still running is released, not left processing", async () => {
    const store = new PostgresIdempotencyStore({ pool, table: "shutdown_direct" });
    await store.ensureSchema();
    const shutdown = createGracefulShutdown({ graceMs: 100, logger: quiet });
    const leaving = qrisReceiver(shutdown.track(store), async () => {
      await sleep(2_000);
    });
    void leaving.handle(delivery("d-1"));
    await sleep(100);
    expect((await pool.query("SELECT state FROM shutdown_direct")).rows).toEqual([{ state: "processing" }]);
    await shutdown.run();
    expect((await pool.query("SELECT state, attempts FROM shutdown_direct")).rows).toEqual([
      { state: "released", attempts: 1 },
    ]);
  });
});

describe("nodeServerSteps", () => {
  it("answers a request on a busy keep-alive connection Connection: close, then closes it and the server", async () => {
    let release: (() => void) | undefined;
    const server: Server = createServer((req, res) => {
      if (req.url === "/slow") release = () => res.end("slow");
      else res.end("fast");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    // A load balancer's upstream connection: kept alive, its next request sent behind the one in flight.
    const socket = connect(port, "127.0.0.1");
    let received = "";
    socket.on("data", (chunk) => {
      received += chunk;
    });
    const ended = new Promise((resolve) => socket.on("close", resolve));
    socket.write("GET /slow HTTP/1.1\r\nHost: lb\r\n\r\n");
    await sleep(50);
    const steps = nodeServerSteps(server);
    let closed = false;
    const stopping = Promise.resolve(steps.stop()).then(() => {
      closed = true;
    });
    socket.write("GET /fast HTTP/1.1\r\nHost: lb\r\n\r\n");
    await sleep(50);
    expect(closed).toBe(false);
    release?.();
    await ended;
    await stopping;
    const answers = received.split("HTTP/1.1 200 OK").slice(1);
    expect(answers).toHaveLength(2);
    expect(answers[0]).toMatch(/Connection: keep-alive/i);
    expect(answers[1]).toMatch(/Connection: close/i);
    expect(answers[1]).toMatch(/fast$/);
    expect(closed).toBe(true);
    // Not listening any more: a new connection is refused, so the load balancer marks the instance down.
    await expect(
      new Promise((resolve, reject) => {
        const probe = httpRequest({ port, host: "127.0.0.1", path: "/fast", agent: false }, resolve);
        probe.on("error", reject);
        probe.end();
      }),
    ).rejects.toMatchObject({ code: "ECONNREFUSED" });
  });

  it("refuses what is not a Node server", () => {
    expect(() => nodeServerSteps({} as never)).toThrow(/pass the Node http.Server/);
  });

  it("abort closes the connections still busy", async () => {
    const server: Server = createServer(() => {
      // Never answers.
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    const hanging = new Promise<string>((resolve) => {
      const outgoing = httpRequest({ port, host: "127.0.0.1", path: "/", method: "POST" }, () => resolve("answered"));
      outgoing.on("error", (error: NodeJS.ErrnoException) => resolve(String(error.code)));
      outgoing.end("x");
    });
    await sleep(50);
    const steps = nodeServerSteps(server);
    const stopping = steps.stop();
    await sleep(50);
    steps.abort();
    await stopping;
    expect(await hanging).toBe("ECONNRESET");
  });
});
