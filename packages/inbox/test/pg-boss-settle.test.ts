// A pg-boss inbox worker never strands the events it holds when a call to the database fails: every settle
// (complete, retry, dead letter) and every fetch is retried with backoff until the database answers, and the events
// are then settled by what actually happened. On a real PostgreSQL, crashed (SIGKILL) while a worker holds events
// whose handlers finished, and through injected failures of single statements.
import type { InboxMessage } from "@kirimbayar/core/webhooks";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import PgBoss from "pg-boss";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { PgBossLike } from "../src/engines/pg-boss.js";
import { createPgBossInbox } from "../src/engines/pg-boss.js";
import type { InboxDelivery, InboxVerdict } from "../src/types.js";

let server: TestPostgresServer;
let boss: PgBoss;
let db: pg.Pool;
const silent = { warn: () => {} };

beforeAll(async () => {
  server = await startPostgresServer();
  boss = new PgBoss({ connectionString: server.url, max: 8, schedule: false, supervise: false });
  boss.on("error", () => {});
  await boss.start();
  db = new pg.Pool({ connectionString: server.url, max: 4 });
  db.on("error", () => {});
  await db.query("CREATE TABLE effects (key text NOT NULL, attempt int NOT NULL)");
}, 60_000);
afterAll(async () => {
  await db?.end().catch(() => {});
  await boss?.stop({ graceful: false, wait: true, timeout: 2_000 }).catch(() => {});
  await server?.destroy();
}, 30_000);

const message = (key: string): InboxMessage => ({ key, source: "qris", body: "{}", receivedAt: Date.now() });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(condition: () => Promise<boolean> | boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}
/** Job states of a queue, by id. */
async function states(name: string): Promise<Map<string, { state: string; retryCount: number; data: unknown }>> {
  const { rows } = await db.query("SELECT id, state, retry_count, data FROM pgboss.job WHERE name = $1", [name]);
  return new Map(rows.map((row) => [row.id, { state: row.state, retryCount: row.retry_count, data: row.data }]));
}

it("settles every held event within seconds after the database crashed and came back, none applied twice", async () => {
  const name = "crash";
  const inbox = await createPgBossInbox({ boss, name, pollingIntervalMs: 50, logger: silent });
  const keys = Array.from({ length: 20 }, (_, i) => `qris:payment.success:crash-${i}`);
  for (const key of keys) await inbox.enqueue(message(key));
  // The first try of every fifth event fails (its transaction rolled back); every other try applies its effect.
  // Then each verdict waits for the gate, opened once the database is down: every settle meets the crash.
  const calls = new Map<string, number>();
  let gate: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    gate = resolve;
  });
  let finished = 0;
  const decide = async ({ message: m, attempt }: InboxDelivery): Promise<InboxVerdict> => {
    calls.set(m.key, (calls.get(m.key) ?? 0) + 1);
    const failing = attempt === 1 && keys.indexOf(m.key) % 5 === 0;
    if (!failing) await db.query("INSERT INTO effects (key, attempt) VALUES ($1, $2)", [m.key, attempt]);
    finished += 1;
    if (attempt === 1) await opened;
    return failing ? { kind: "retry", error: "rolled back", delayMs: 0 } : { kind: "done" };
  };
  const consumer = await inbox.consume(decide, { concurrency: keys.length });
  try {
    await until(() => finished === keys.length, 10_000, "every first try to finish");
    await server.crash();
    gate();
    await sleep(1_500);
    await server.start();
    const back = Date.now();
    // Completed, or (the failed first tries) retried and completed: nothing left active or waiting.
    await until(
      async () => {
        const jobs = await states(name).catch(() => new Map());
        return jobs.size === keys.length && [...jobs.values()].every((job) => job.state === "completed");
      },
      20_000,
      "every event completed",
    );
    const recoveryMs = Date.now() - back;
    console.log(`pg-boss inbox, database crashed 1.5 s: every held event settled ${recoveryMs} ms after its return`);
    expect(recoveryMs).toBeLessThan(10_000);
    const { rows } = await db.query("SELECT key, count(*)::int AS n FROM effects GROUP BY key");
    expect(rows).toHaveLength(keys.length);
    expect(rows.every((row) => row.n === 1)).toBe(true);
    // One try each, two for the failed ones: no finished event ran again.
    for (const [i, key] of keys.entries()) expect(calls.get(key)).toBe(i % 5 === 0 ? 2 : 1);
    // The failed tries' errors are kept in their jobs' data.
    const retried = [...(await states(name)).values()].filter((job) => job.retryCount === 1);
    expect(retried).toHaveLength(4);
    for (const job of retried) expect((job.data as { attempts?: unknown[] }).attempts).toHaveLength(1);
  } finally {
    await consumer.stop({ timeoutMs: 2_000 });
  }
}, 60_000);

/** `boss`, whose statements matching a pattern fail the first `n` times (as a connection that broke would). */
function failing(rules: { what: RegExp; times: number; failed?: number }[]): PgBossLike {
  const fail = (text: string) => {
    const rule = rules.find((r) => r.what.test(text) && (r.failed ?? 0) < r.times);
    if (rule === undefined) return false;
    rule.failed = (rule.failed ?? 0) + 1;
    return true;
  };
  return new Proxy(boss, {
    get(target, property, receiver) {
      if (property === "getDb") {
        return () => ({
          executeSql(text: string, values: unknown[]) {
            if (fail(text)) return Promise.reject(new Error("Connection terminated unexpectedly"));
            return target.getDb().executeSql(text, values);
          },
        });
      }
      if (property === "send") {
        return (queue: string, data: object, options: object) =>
          fail(`send ${queue}`)
            ? Promise.reject(new Error("Connection terminated unexpectedly"))
            : target.send(queue, data, options);
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as unknown as PgBossLike;
}

it("retries a fetch and every settle that fails, until each event is settled once by its verdict", async () => {
  const name = "flaky";
  const rules: { what: RegExp; times: number; failed?: number }[] = [
    { what: /ORDER BY start_after/, times: 3 }, // fetch
    { what: /state = 'completed'/, times: 3 }, // complete (done, and the dead event's original)
    { what: /jsonb_set\(data, '\{attempts\}'/, times: 2 }, // retry
    { what: /^send flaky-dead$/, times: 2 }, // dead letter
  ];
  const inbox = await createPgBossInbox({ boss: failing(rules), name, pollingIntervalMs: 50, logger: silent });
  const [done, retried, dead] = ["done", "retried", "dead"].map((k) => `qris:payment.success:flaky-${k}`) as [
    string,
    string,
    string,
  ];
  for (const key of [done, retried, dead]) await inbox.enqueue(message(key));
  const calls = new Map<string, number>();
  const decide = async ({ message: m, attempt }: InboxDelivery): Promise<InboxVerdict> => {
    calls.set(m.key, (calls.get(m.key) ?? 0) + 1);
    if (m.key === retried && attempt === 1) return { kind: "retry", error: "first try failed", delayMs: 0 };
    if (m.key === dead) return { kind: "dead", error: "can never succeed" };
    return { kind: "done" };
  };
  const consumer = await inbox.consume(decide, { concurrency: 3 });
  try {
    await until(
      async () => {
        const jobs = [...(await states(name)).values()];
        return jobs.length === 3 && jobs.every((job) => job.state === "completed");
      },
      20_000,
      "every event settled",
    );
    await until(async () => (await inbox.stats()).deadLetters === 1, 5_000, "the dead letter");
  } finally {
    await consumer.stop({ timeoutMs: 2_000 });
  }
  // Every injected failure happened, and was retried.
  expect(rules.map((rule) => rule.failed)).toEqual([3, 3, 2, 2]);
  expect(Object.fromEntries(calls)).toEqual({ [done]: 1, [retried]: 2, [dead]: 1 });
  const [letter] = await inbox.listDeadLetters();
  expect(letter?.message.key).toBe(dead);
  expect(letter?.attempts.map((a) => a.error)).toEqual(["can never succeed"]);
  const retriedJob = [...(await states(name)).values()].find(
    (job) => (job.data as { message: InboxMessage }).message.key === retried,
  );
  const kept = (retriedJob?.data ?? {}) as { attempts?: { error: string }[] };
  expect(kept.attempts?.map((a) => a.error)).toEqual(["first try failed"]);
}, 60_000);

it("fences every settle by the try: a worker whose hold was taken back completes nothing of the new holder's", async () => {
  const name = "fenced";
  let completes = 0;
  const counted = new Proxy(boss, {
    get(target, property, receiver) {
      if (property === "getDb") {
        return () => ({
          async executeSql(text: string, values: unknown[]) {
            const result = await target.getDb().executeSql(text, values);
            if (/state = 'completed'/.test(text)) completes += 1;
            return result;
          },
        });
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as unknown as PgBossLike;
  const inbox = await createPgBossInbox({ boss: counted, name, pollingIntervalMs: 50, logger: silent });
  await inbox.enqueue(message("qris:payment.success:fenced-1"));
  let gate: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    gate = resolve;
  });
  let started = false;
  const consumer = await inbox.consume(async () => {
    started = true;
    await opened;
    return { kind: "done" };
  });
  try {
    await until(() => started, 10_000, "the try to start");
    // The hold is taken back (as the reaper does once it ran out) and another worker takes the event.
    await db.query("UPDATE pgboss.job SET state = 'retry', start_after = now() - interval '1 second' WHERE name = $1", [
      name,
    ]);
    const [taken] = await boss.fetch(name, { includeMetadata: true });
    expect(taken?.retryCount).toBe(1);
    gate();
    await until(() => completes > 0, 10_000, "the first worker's completion");
    const [job] = [...(await states(name)).values()];
    expect(job).toMatchObject({ state: "active", retryCount: 1 });
  } finally {
    await consumer.stop({ timeoutMs: 2_000 });
  }
}, 60_000);
