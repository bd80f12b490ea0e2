// The MySQL store's batched claims and completions on a real MariaDB (tests/mariadb-server): concurrent deliveries
// share multi-row statements, a key still goes to exactly one delivery, and two instances racing over the same keys in
// opposite orders neither deadlock nor both claim a key. The single-statement path (`batching: false`) keeps the
// store contract too.
import { startMariaDbServer, type TestMariaDbServer } from "@kirimbayar/test-mariadb-server";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MysqlIdempotencyStore, type MysqlPoolConnectionLike, type MysqlPoolLike } from "../src/mysql.js";
import {
  createWebhookReceiver,
  type IdempotencyStore,
  IdempotencyStoreUnavailableError,
  tokenVerifier,
} from "../src/webhooks.js";
import { storeContract } from "./support/store-contract.js";
import { qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "mysql-batch-token";
const quiet = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: TestMariaDbServer;
let pool: mysql.Pool;
let tables = 0;

beforeAll(async () => {
  server = await startMariaDbServer();
  pool = mysql.createPool({ uri: server.url, connectionLimit: 8 });
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await server?.destroy();
});

/** The pool, counting every statement sent through it (on the pool or on a connection it lent). */
function counting(target: mysql.Pool): { pool: MysqlPoolLike; statements: () => number } {
  let count = 0;
  const wrap = <T extends { query: mysql.Pool["query"]; execute: mysql.Pool["execute"] }>(on: T) => ({
    query: (sql: string, values?: unknown) => {
      count++;
      return on.query(sql, values as never) as unknown as PromiseLike<[unknown, unknown]>;
    },
    execute: (sql: string, values?: unknown) => {
      count++;
      return on.execute(sql, values as never) as unknown as PromiseLike<[unknown, unknown]>;
    },
  });
  return {
    pool: {
      ...wrap(target),
      getConnection: async (): Promise<MysqlPoolConnectionLike> => {
        const lent = await target.getConnection();
        return { ...wrap(lent), release: () => lent.release(), destroy: () => lent.destroy() };
      },
    },
    statements: () => count,
  };
}

async function freshStore(options: { batching?: false; pool?: MysqlPoolLike; table?: string } = {}) {
  const table = options.table ?? `b${tables++}`;
  const store = new MysqlIdempotencyStore({
    pool: options.pool ?? pool,
    table,
    ...(options.batching === false ? { batching: false as const } : {}),
  });
  await store.ensureSchema();
  return { store, table };
}

async function records(table: string) {
  const [rows] = await pool.query(`SELECT \`key\`, state, owner, attempts FROM ${table} ORDER BY \`key\``);
  return rows as { key: string; state: string; owner: string | null; attempts: number }[];
}

describe("mysql store contract with batching: false (one statement per call)", () => {
  storeContract(() => {
    const ready = freshStore({ batching: false });
    return {
      claim: async (...args) => (await ready).store.claim(...args),
      complete: async (...args) => (await ready).store.complete(...args),
      release: async (...args) => (await ready).store.release(...args),
    } satisfies IdempotencyStore;
  });
});

describe("MysqlIdempotencyStore batching", () => {
  it("serves 200 concurrent deliveries with far fewer statements, each event claimed and completed once", async () => {
    const counted = counting(pool);
    const { store, table } = await freshStore({ pool: counted.pool });
    const runs = new Map<string, number>();
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: { store },
      logger: quiet,
    }).on("payment.success", (event) => {
      const id = String(event.data.qris_history_id);
      runs.set(id, (runs.get(id) ?? 0) + 1);
    });
    const before = counted.statements();
    const ids = Array.from({ length: 200 }, (_, i) => `batch-${i}`);
    const answers = await Promise.all(
      ids.map((id) =>
        receiver.handle(
          webhookRequest({
            url: `/hook?token=${TOKEN}`,
            rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })),
          }),
        ),
      ),
    );
    const sent = counted.statements() - before;
    expect(answers.map((answer) => answer.status)).toEqual(ids.map(() => 200));
    expect([...runs.values()].every((count) => count === 1) && runs.size === 200).toBe(true);
    // Unbatched, each delivery sends a claim and a completion: 400 statements.
    expect(sent).toBeLessThan(100);
    const rows = await records(table);
    expect(rows).toHaveLength(200);
    expect(rows.every((row) => row.state === "completed" && row.attempts === 1)).toBe(true);
    // Duplicates of completed events, together: every one answered as a duplicate, no handler run again.
    const again = await Promise.all(ids.slice(0, 50).map((id) => store.claim(`qris:payment.success:${id}`, "x", 1)));
    const keys = rows.map((row) => row.key);
    expect(keys.every((key) => key.includes(":batch-"))).toBe(true);
    expect(again.filter((answer) => answer.state === "claimed")).toEqual([]);
  });

  it("gives one key claimed 20 times at once (through 4 instances) to exactly one claim", async () => {
    const { store, table } = await freshStore();
    const others = [store];
    for (let i = 0; i < 3; i++) others.push((await freshStore({ table })).store);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => others[i % 4]?.claim("contended", `owner-${i}`, 60_000)),
    );
    const claimed = answers.filter((answer) => answer?.state === "claimed");
    expect(claimed).toEqual([{ state: "claimed", attempt: 1 }]);
    expect(answers.filter((answer) => answer?.state === "in_progress")).toHaveLength(19);
    const winner = answers.findIndex((answer) => answer?.state === "claimed");
    // Only the winner completes it; every other owner is refused.
    const completions = await Promise.all(
      Array.from({ length: 20 }, (_, i) => others[i % 4]?.complete("contended", `owner-${i}`, 60_000)),
    );
    expect(completions.map((done, i) => (done ? i : -1)).filter((i) => i >= 0)).toEqual([winner]);
  });

  it.each([0, 1, 2, 3, 4])(
    "lets two instances race over the same 300 keys in opposite orders: no deadlock, no key claimed twice (round %i)",
    async () => {
      const { store: a, table } = await freshStore();
      const { store: b } = await freshStore({ table });
      const keys = Array.from({ length: 300 }, (_, i) => `race-${String(i).padStart(3, "0")}`);
      const claimAll = (store: MysqlIdempotencyStore, order: string[], who: string) =>
        Promise.all(order.map(async (key) => ({ key, who, answer: await store.claim(key, `${who}-${key}`, 60_000) })));
      const [fromA, fromB] = await Promise.all([claimAll(a, keys, "a"), claimAll(b, keys.slice().reverse(), "b")]);
      const winners = new Map<string, string[]>();
      for (const { key, who, answer } of [...fromA, ...fromB]) {
        if (answer.state === "claimed") winners.set(key, [...(winners.get(key) ?? []), who]);
        else expect(answer.state).toBe("in_progress");
      }
      expect(winners.size).toBe(300);
      expect([...winners.values()].filter((who) => who.length !== 1)).toEqual([]);
      // Both complete every key in opposite orders: each completion lands for its winner only.
      const completeAll = (store: MysqlIdempotencyStore, order: string[], who: string) =>
        Promise.all(order.map(async (key) => ({ key, who, done: await store.complete(key, `${who}-${key}`, 60_000) })));
      const done = await Promise.all([completeAll(a, keys, "a"), completeAll(b, keys.slice().reverse(), "b")]);
      for (const { key, who, done: completed } of done.flat()) {
        expect(completed).toBe(winners.get(key)?.[0] === who);
      }
      const rows = await records(table);
      expect(rows.every((row) => row.state === "completed" && row.attempts === 1)).toBe(true);
      expect(rows).toHaveLength(300);
    },
  );

  it("gives back the keys a failing batch inserted, so the provider's retry is not answered 409 until the lease ends", async () => {
    const table = `b${tables++}`;
    // The batch's read-back fails (the server went away after the insert): only that statement, the rest is real.
    const lost = () => Promise.reject(Object.assign(new Error("Connection lost"), { fatal: true }));
    const failing: MysqlPoolLike = {
      query: (sql, values) => pool.query(sql, values as never) as never,
      execute: (sql, values) =>
        sql.startsWith("SELECT `key`") ? lost() : (pool.execute(sql, values as never) as never),
      getConnection: async () => {
        const lent = await pool.getConnection();
        return {
          query: (sql: string, values?: unknown) => lent.query(sql, values as never) as never,
          execute: (sql: string, values?: unknown) =>
            sql.startsWith("SELECT `key`") ? lost() : (lent.execute(sql, values as never) as never),
          release: () => lent.release(),
          destroy: () => lent.destroy(),
        };
      },
    };
    const { store } = await freshStore({ pool: failing, table });
    await store.claim("dup", "earlier", 60_000);
    const keys = Array.from({ length: 10 }, (_, i) => `n${i}`);
    // The first two go out alone (maxInFlight 2); the rest, with the held "dup", form one batch that must read back.
    const outcomes = await Promise.allSettled([...keys, "dup"].map((key) => store.claim(key, `first-${key}`, 60_000)));
    const failed = outcomes.flatMap((outcome, i) => (outcome.status === "rejected" ? [[...keys, "dup"][i]] : []));
    expect(failed).toEqual(["n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "dup"]);
    for (const outcome of outcomes) {
      if (outcome.status === "rejected") expect(outcome.reason).toBeInstanceOf(IdempotencyStoreUnavailableError);
    }
    // The retries (another owner each) get the keys at once, counted as the second attempt; "dup" stays held.
    const { store: healthy } = await freshStore({ table, batching: false });
    let retried: unknown[] = [];
    for (let tries = 0; tries < 50; tries++) {
      retried = await Promise.all(["n2", "n9", "dup"].map((key) => healthy.claim(key, `retry-${key}`, 60_000)));
      if ((retried[0] as { state: string }).state === "claimed") break;
      await sleep(20);
    }
    expect(retried).toEqual([
      { state: "claimed", attempt: 2 },
      { state: "claimed", attempt: 2 },
      { state: "in_progress" },
    ]);
  });

  it("settles a batch of mixed records as the single statements do: new, duplicate, released, expired lease", async () => {
    const { store, table } = await freshStore();
    await store.claim("held", "h", 60_000);
    await store.claim("done", "d", 60_000);
    await store.complete("done", "d", 60_000);
    await store.claim("released", "r", 60_000);
    await store.release("released", "r", 60_000);
    await store.claim("lapsed", "l", 1);
    await sleep(20);
    const keys = ["new", "held", "done", "released", "lapsed"];
    const answers = await Promise.all(keys.map((key) => store.claim(key, `next-${key}`, 60_000)));
    expect(Object.fromEntries(keys.map((key, i) => [key, answers[i]]))).toEqual({
      new: { state: "claimed", attempt: 1 },
      held: { state: "in_progress" },
      done: { state: "completed" },
      released: { state: "claimed", attempt: 2 },
      lapsed: { state: "claimed", attempt: 2 },
    });
    // Completions in one batch: the holders' land; an intruder's, the lapsed lease's old owner's, and an unknown
    // key's (recorded, as a completion nobody holds) answer as the single statements do.
    const completions = await Promise.all([
      store.complete("new", "next-new", 60_000),
      store.complete("held", "intruder", 60_000),
      store.complete("lapsed", "l", 60_000),
      store.complete("released", "next-released", 60_000),
      store.complete("never-claimed", "someone", 60_000),
    ]);
    expect(completions).toEqual([true, false, false, true, true]);
    const states = Object.fromEntries((await records(table)).map((row) => [row.key, row.state]));
    expect(states).toEqual({
      new: "completed",
      held: "processing",
      done: "completed",
      released: "completed",
      lapsed: "processing",
      "never-claimed": "completed",
    });
  });
});
