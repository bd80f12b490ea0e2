// PgBouncer SIGKILLed and started again while deliveries are in flight (issue 37): the shop's transactional set-ups
// (the README's pg Pool with the journal, and the TypeORM and Prisma bindings), default options, the provider retrying
// each delivery until it is answered 200 (its 4 tries over 21 minutes compressed to 100 ms doubling up to 2 s, for
// 90 s). Each handler writes its effect and then takes 30 ms before the commit, so that the crash finds deliveries
// between their effect and their commit. Goals: no event lost, none applied twice, and the recovery (from the
// restart until every event first delivered before it is applied) within 60 s.
//
// `pnpm test` runs one 1 s outage per set-up and mode on 120 events; `pnpm chaos` (KIRIMBAYAR_CHAOS=full) 1,000 events
// with outages of 0.3 s, 5 s and 20 s.
import { startPgBouncer } from "@kirimbayar/test-pgbouncer-server";
import { describe, expect, it } from "vitest";
import { capturedLog, deliverWithRetries, historyIds, startShop } from "./support/deliveries.js";
import { BOUNCER_POOL, type PoolMode, usePoolerDatabase } from "./support/pooler-suite.js";
import { ormSetups, pgSetups, type Setup } from "./support/setups.js";

const FULL = process.env.KIRIMBAYAR_CHAOS === "full";
const EVENTS = FULL ? 1_000 : 120;
const OUTAGES_MS = FULL ? [300, 5_000, 20_000] : [1_000];
const RETRY_FOR_MS = 90_000;
const HANDLER_PAUSE_MS = 30;
const RECOVERY_GOAL_S = 60;

const byName = (setups: readonly Setup[], name: string) => setups.find((setup) => setup.name === name) as Setup;
const SETUPS = [
  byName(pgSetups, "pg Pool, transactional + journal"),
  byName(ormSetups, "TypeORM, transactional + journal"),
  ...(FULL ? [byName(ormSetups, "Prisma (adapter-pg), transactional + journal")] : []),
];
const MODES: PoolMode[] = ["transaction", "session"];

const database = usePoolerDatabase();
let run = 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const scenarios = SETUPS.flatMap((setup) =>
  MODES.flatMap((mode) => OUTAGES_MS.map((downMs) => ({ setup, mode, downMs, name: setup.name }))),
);

describe("PgBouncer SIGKILLed mid-flight and started again", () => {
  it.each(scenarios)(
    "$name, $mode mode, down $downMs ms: 0 lost, 0 applied twice, recovered within 60 s",
    async ({ setup, mode, downMs }) => {
      const prefix = `crash-${mode}-${run++}`;
      const bouncer = await startPgBouncer(database.postgres, { poolMode: mode, poolSize: BOUNCER_POOL[mode] });
      const storeLog = capturedLog();
      const shop = await setup.build(bouncer.url, storeLog);
      let holding = 0;
      const paused = {
        ...shop,
        markPaid: async (historyId: string, ctx: Parameters<typeof shop.markPaid>[1]) => {
          await shop.markPaid(historyId, ctx);
          holding++;
          try {
            await sleep(HANDLER_PAUSE_MS);
          } finally {
            holding--;
          }
        },
      };
      const app = await startShop(paused, capturedLog());
      let inFlight = 0;
      let answered200 = 0;
      const answeredBefore = new Set<string>();
      const afterRestart: number[] = [];
      let restartedAt: number | undefined;
      let inFlightAtCrash = 0;
      let betweenEffectAndCommitAtCrash = 0;
      let crashedAt = 0;
      try {
        const campaign = deliverWithRetries(app.url, {
          prefix,
          events: EVENTS,
          retryForMs: RETRY_FOR_MS,
          onSend: () => inFlight++,
          onAnswer: (answer) => {
            inFlight--;
            if (restartedAt === undefined) answeredBefore.add(answer.id);
            else if (answer.status === 200) afterRestart.push(answer.at);
            if (answer.status === 200) answered200++;
          },
        });
        // The crash, once a third of the events were answered, with deliveries in flight.
        const outage = (async () => {
          for (let waited = 0; answered200 < EVENTS / 3 && waited < 60_000; waited += 20) await sleep(20);
          inFlightAtCrash = inFlight;
          betweenEffectAndCommitAtCrash = holding;
          crashedAt = performance.now();
          await bouncer.crash();
          await sleep(downMs);
          await bouncer.start();
          restartedAt = performance.now();
        })();
        // Recovery: from the restart until every event the provider had tried before it is applied.
        const recovery = (async () => {
          await outage;
          const waiting = [...answeredBefore];
          for (let waited = 0; waited < RETRY_FOR_MS; waited += 100) {
            const applied = await database.appliedOf(prefix);
            if (waiting.every((id) => (applied[id] ?? 0) > 0)) return (performance.now() - (restartedAt ?? 0)) / 1000;
            await sleep(100);
          }
          return null;
        })();
        const [result, recoverySeconds] = await Promise.all([campaign, recovery]);
        const applied = await database.appliedOf(prefix);
        const ids = historyIds(prefix, EVENTS);
        const lost = ids.filter((id) => (applied[id] ?? 0) === 0);
        const doubles = ids.filter((id) => (applied[id] ?? 0) > 1);
        const firstOkAfterRestart =
          afterRestart.length > 0 ? (Math.min(...afterRestart) - (restartedAt ?? 0)) / 1000 : null;
        const figures = {
          setup: setup.name,
          mode,
          events: EVENTS,
          downMs,
          inFlightAtCrash,
          betweenEffectAndCommitAtCrash,
          requests: result.requests,
          byStatus: result.byStatus,
          lost: lost.length,
          doubles: doubles.length,
          neverAnswered200: result.neverAnswered200.length,
          outageSeconds: Number((((restartedAt ?? 0) - crashedAt) / 1000).toFixed(2)),
          firstOkAfterRestartS: firstOkAfterRestart === null ? null : Number(firstOkAfterRestart.toFixed(2)),
          recoverySeconds: recoverySeconds === null ? null : Number(recoverySeconds.toFixed(2)),
          runSeconds: result.seconds,
        };
        console.log(`[pooler-crash] ${JSON.stringify(figures)}`);
        expect(inFlightAtCrash).toBeGreaterThan(0);
        expect(lost).toEqual([]);
        expect(doubles).toEqual([]);
        expect(result.neverAnswered200).toEqual([]);
        expect(recoverySeconds).not.toBeNull();
        expect(recoverySeconds as number).toBeLessThanOrEqual(RECOVERY_GOAL_S);
      } finally {
        await app.close();
        await shop.close().catch(() => {});
        await bouncer.destroy();
      }
    },
    FULL ? 600_000 : 60_000,
  );
});
