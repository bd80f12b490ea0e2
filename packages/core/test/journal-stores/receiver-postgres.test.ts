// A receiver journaling into PostgresDeliveryJournal on a real server: transactional deliveries whose entry commits
// with the order update, and a journal table that refuses writes: every delivery still gets its answer (and its
// effect, once), the failure goes to onError (stage "journal") without the webhook token.
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type PgQueryable, PostgresDeliveryJournal, PostgresIdempotencyStore } from "../../src/postgres.js";
import { createWebhookReceiver, tokenVerifier } from "../../src/webhooks.js";
import { qrisSuccess, webhookRequest } from "../support/webhook-requests.js";

const TOKEN = "journal-webhook-token-SECRET";
const quiet = { warn: () => {}, error: () => {}, info: () => {} };
let server: TestPostgresServer;
let pool: pg.Pool;
let shops = 0;

beforeAll(async () => {
  server = await startPostgresServer();
  pool = new pg.Pool({ connectionString: server.url, max: 6 });
  pool.on("error", () => {});
}, 60_000);

afterAll(async () => {
  await pool?.end();
  await server?.destroy();
});

const delivery = (id: string) =>
  webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });

async function shop(transactional: boolean) {
  const n = shops++;
  await pool.query(`CREATE TABLE orders_${n} (history_id text PRIMARY KEY, paid integer NOT NULL DEFAULT 0)`);
  const store = new PostgresIdempotencyStore({ pool, table: `events_${n}` });
  await store.ensureSchema();
  const journal = new PostgresDeliveryJournal({ pool, table: `journal_${n}` });
  await journal.ensureSchema();
  const errors: { error: unknown; stage: string }[] = [];
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    idempotency: { store, transactional },
    journal,
    logger: quiet,
  })
    .on("payment.success", async (event, ctx) => {
      const db = (transactional ? ctx.transaction : pool) as PgQueryable;
      await db.query(
        `INSERT INTO orders_${n} (history_id, paid) VALUES ($1, 1)
         ON CONFLICT (history_id) DO UPDATE SET paid = orders_${n}.paid + 1`,
        [String(event.data.qris_history_id)],
      );
    })
    .onError((error, { stage }) => {
      errors.push({ error, stage });
    });
  const paid = async (id: string) =>
    Number((await pool.query(`SELECT paid FROM orders_${n} WHERE history_id = $1`, [id])).rows[0]?.paid ?? 0);
  const refuseWrites = async () => {
    await pool.query(`CREATE FUNCTION refuse_${n}() RETURNS trigger LANGUAGE plpgsql AS
      $$ BEGIN RAISE EXCEPTION 'journal table is read-only'; END $$`);
    await pool.query(`CREATE TRIGGER refuse BEFORE INSERT ON journal_${n} FOR EACH ROW EXECUTE FUNCTION refuse_${n}()`);
  };
  return { receiver, journal, errors, paid, refuseWrites };
}

describe.each([true, false])("a receiver with the Postgres journal (transactional: %s)", (transactional) => {
  it("journals each delivery: processed, then its duplicate", async () => {
    const { receiver, journal, paid } = await shop(transactional);
    expect((await receiver.handle(delivery("h-1"))).status).toBe(200);
    expect((await receiver.handle(delivery("h-1"))).status).toBe(200);
    expect(await paid("h-1")).toBe(1);
    await vi.waitFor(
      async () => {
        await journal.flush();
        const story = await journal.search({ reference: "h-1" });
        expect(story.map((e) => e.outcome)).toEqual(["duplicate", "processed"]);
      },
      { timeout: 3_000, interval: 50 },
    );
    await journal.close();
  });

  it("answers every delivery as without a journal when the journal table refuses writes", async () => {
    const { receiver, journal, errors, paid, refuseWrites } = await shop(transactional);
    await refuseWrites();
    expect((await receiver.handle(delivery("h-2"))).status).toBe(200);
    expect((await receiver.handle(delivery("h-2"))).status).toBe(200);
    expect((await receiver.handle(webhookRequest({ url: "/hook?token=wrong", rawBody: "{}" }))).status).toBe(401);
    expect(await paid("h-2")).toBe(1);
    await vi.waitFor(
      async () => {
        await journal.flush();
        expect(errors.filter((e) => e.stage === "journal").length).toBeGreaterThanOrEqual(3);
      },
      { timeout: 3_000, interval: 50 },
    );
    for (const { error } of errors) {
      const shown = JSON.stringify(error, Object.getOwnPropertyNames(error)) + String((error as Error).cause);
      expect(shown).not.toContain(TOKEN);
    }
    expect(await journal.search({ reference: "h-2" })).toEqual([]);
    await journal.close();
  });
});
