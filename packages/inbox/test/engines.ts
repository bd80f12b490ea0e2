// Both inbox engines on real servers, started once per test file: PostgreSQL for pg-boss, redis-server for BullMQ.
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import PgBoss from "pg-boss";
import { afterAll, beforeAll } from "vitest";
import { createBullMqInbox } from "../src/engines/bullmq.js";
import { createPgBossInbox } from "../src/engines/pg-boss.js";
import type { InboxQueue } from "../src/types.js";

export interface EngineUnderTest {
  readonly name: "pg-boss" | "bullmq";
  /** A fresh queue (its own name) on the shared server. */
  inbox(): Promise<InboxQueue>;
  /** Stops the server (a database or Redis outage) and starts it again. */
  outage(): { stop(): Promise<void>; start(): Promise<void> };
  close(): Promise<void>;
}

let queues = 0;
const uniqueName = () => `inbox-test-${process.pid}-${++queues}`;

export async function pgBossEngine(): Promise<EngineUnderTest> {
  const server: TestPostgresServer = await startPostgresServer();
  const boss = new PgBoss({ connectionString: server.url, max: 8, maintenanceIntervalSeconds: 1 });
  boss.on("error", () => {});
  await boss.start();
  const opened: InboxQueue[] = [];
  return {
    name: "pg-boss",
    async inbox() {
      const inbox = await createPgBossInbox({ boss, name: uniqueName(), pollingIntervalMs: 100, expireInSeconds: 2 });
      opened.push(inbox);
      return inbox;
    },
    outage: () => ({ stop: () => server.stop(), start: () => server.start() }),
    async close() {
      await Promise.all(opened.map((inbox) => inbox.close()));
      await boss.stop({ graceful: false, wait: true, timeout: 2_000 }).catch(() => {});
      await server.destroy();
    },
  };
}

export async function bullMqEngine(): Promise<EngineUnderTest> {
  const server: TestRedisServer = await startRedisServer();
  const opened: InboxQueue[] = [];
  return {
    name: "bullmq",
    async inbox() {
      const inbox = await createBullMqInbox({
        connection: { host: "127.0.0.1", port: server.port },
        name: uniqueName(),
        lockDurationMs: 2_000,
        stalledIntervalMs: 500,
      });
      opened.push(inbox);
      return inbox;
    },
    outage: () => ({ stop: () => server.stop(), start: () => server.start() }),
    async close() {
      await Promise.all(opened.map((inbox) => inbox.close().catch(() => {})));
      await server.stop();
    },
  };
}

/** Both engines, for `describe.each(ENGINES)`: each row its name and how to start it. */
export const ENGINES = [
  ["pg-boss", pgBossEngine],
  ["bullmq", bullMqEngine],
] as const;

/**
 * Starts the engine before the describe block's tests and closes it after them. What it returns stands for the
 * started engine, to be used inside tests and hooks.
 */
export function useEngine(start: () => Promise<EngineUnderTest>): EngineUnderTest {
  let engine: EngineUnderTest | undefined;
  beforeAll(async () => {
    engine = await start();
  }, 60_000);
  afterAll(async () => {
    await engine?.close();
  }, 30_000);
  const started = (): EngineUnderTest => {
    if (engine === undefined) throw new Error("useEngine: used before its beforeAll ran");
    return engine;
  };
  return {
    get name() {
      return started().name;
    },
    inbox: () => started().inbox(),
    outage: () => started().outage(),
    close: () => started().close(),
  };
}
