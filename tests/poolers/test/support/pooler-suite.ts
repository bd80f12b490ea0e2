// One table of set-ups run behind a real PgBouncer in transaction and in session mode (issue 37): each set-up as the
// README or its guide shows it, default options, 100 QR events (30 % delivered twice), 10 at a time, each delivery
// tried up to 3 times. Every event applied exactly once, no delivery answered 5xx, every delivery in the journal,
// and the switch to unnamed statements (transaction mode) logged at most once per set-up.
import { startPgBouncer, type TestPgBouncer } from "@kirimbayar/test-pgbouncer-server";
import { startPostgresServer, type TestPostgresServer } from "@kirimbayar/test-postgres-server";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { capturedLog, deliverCampaign, historyIds, startShop, unexpectedErrors } from "./deliveries.js";
import { APP_POOL_SIZE, EFFECTS_TABLE, type Setup } from "./setups.js";

export type PoolMode = "transaction" | "session";

/**
 * PgBouncer's pool per mode. Transaction mode: smaller than the app's pool, so that the app's connections share
 * server connections (what makes named statements collide). Session mode: a server connection per client
 * connection, for every pool a set-up opens (a client waits for a free one otherwise).
 */
export const BOUNCER_POOL: Record<PoolMode, number> = { transaction: 4, session: 4 * APP_POOL_SIZE };

/** The warnings saying the store or journal switched to unnamed statements. */
export const switchWarnings = (warnings: readonly string[]) => warnings.filter((w) => /pooler/i.test(w));

/** The PostgreSQL of a test file (behind each PgBouncer), its admin pool, and the effect rows its events left. */
export interface PoolerDatabase {
  readonly postgres: TestPostgresServer;
  readonly admin: pg.Pool;
  /** Effect rows by history id, for the ids starting with `prefix`. */
  appliedOf(prefix: string): Promise<Record<string, number>>;
}

/**
 * Starts PostgreSQL with the effects table before the file's (or describe block's) tests and destroys it after them.
 * The fields are read inside tests and hooks, once `beforeAll` has run.
 */
export function usePoolerDatabase(): PoolerDatabase {
  let postgres: TestPostgresServer | undefined;
  let admin: pg.Pool | undefined;

  beforeAll(async () => {
    postgres = await startPostgresServer();
    admin = new pg.Pool({ connectionString: postgres.url, max: 2 });
    admin.on("error", () => {});
    await admin.query(EFFECTS_TABLE);
  });

  afterAll(async () => {
    await admin?.end();
    await postgres?.destroy();
  });

  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error("usePoolerDatabase: read before its beforeAll ran");
    return value;
  };
  return {
    get postgres() {
      return started(postgres);
    },
    get admin() {
      return started(admin);
    },
    async appliedOf(prefix) {
      const { rows } = await started(admin).query<{ history_id: string; n: number }>(
        "SELECT history_id, count(*)::int AS n FROM effects WHERE history_id LIKE $1 || '-%' GROUP BY history_id",
        [prefix],
      );
      return Object.fromEntries(rows.map((row) => [row.history_id, row.n]));
    },
  };
}

/** Runs the campaign for every set-up of `setups`, behind PgBouncer in both modes. */
export function poolerSuite(title: string, setups: readonly Setup[], events = 100): void {
  const database = usePoolerDatabase();
  let run = 0;

  describe.each(["transaction", "session"] as const)(`${title}, behind PgBouncer in %s mode`, (mode) => {
    let bouncer: TestPgBouncer;

    beforeAll(async () => {
      bouncer = await startPgBouncer(database.postgres, { poolMode: mode, poolSize: BOUNCER_POOL[mode] });
    });

    afterAll(async () => {
      await bouncer?.destroy();
    });

    it.each(setups)(
      "$name: every event applied once, nothing answered 5xx, every delivery journaled",
      async (setup) => {
        const prefix = `${mode}-${run++}`;
        const storeLog = capturedLog();
        const receiverLog = capturedLog();
        const shop = await setup.build(bouncer.url, storeLog);
        const app = await startShop(shop, receiverLog);
        let result: Awaited<ReturnType<typeof deliverCampaign>>;
        try {
          result = await deliverCampaign(app.url, { prefix, events });
          await shop.journal?.flush();
        } finally {
          await app.close();
          await shop.close();
        }
        const applied = await database.appliedOf(prefix);
        const switches = switchWarnings(storeLog.warnings);
        const figures = {
          mode,
          setup: setup.name,
          ...result,
          switches: switches.length,
          errors: receiverLog.errors.slice(0, 3),
        };
        console.log(`[pooler] ${JSON.stringify(figures)}`);
        expect(result.answered5xx, JSON.stringify(figures)).toBe(0);
        expect(result.neverAnswered200).toEqual([]);
        expect(unexpectedErrors(receiverLog.errors)).toEqual([]);
        expect(applied).toEqual(Object.fromEntries(historyIds(prefix, events).map((id) => [id, 1])));
        if (shop.journal !== undefined) {
          const journaled = await database.admin.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM kirimbayar_delivery_journal WHERE qris_history_id LIKE $1 || '-%'",
            [prefix],
          );
          expect(journaled.rows[0]?.n).toBe(result.requests);
        }
        expect(switchWarnings(storeLog.warnings).length).toBeLessThanOrEqual(1);
        if (mode === "session") expect(switchWarnings(storeLog.warnings)).toEqual([]);
      },
    );
  });
}
