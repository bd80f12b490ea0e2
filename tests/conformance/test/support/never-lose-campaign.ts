// The never-lose campaign (issue 16's proof, and issues 27 and 28's through the ORMs and on MariaDB), run against one
// database backend: every paid payment applied exactly once, none lost, when webhooks are missed for good.
// On the fake provider's clock, QR payments are paid over an hour while:
// - 20 % of them have all 4 webhook deliveries fail (the shop never hears of them by webhook);
// - the shop's database (a real server) is down for 30 minutes in the middle, longer than the provider retries: it
//   goes down either by a clean stop between deliveries, or by a SIGKILL while deliveries sit between their effect
//   and their commit ("crash-mid-flight"), and comes back (after crash recovery) 30 minutes later; a crashed server is
//   also SIGKILLed mid-flight once earlier and restarted at once, as a supervisor would;
// - on some deliveries the connection dies between the handler's write and the commit, as a SIGKILL of the app
//   would leave it (the delivery's backend is killed from outside, its id read through the library in the handler);
// - two app instances (own pools, own stores, own receivers) share the one database, deliveries alternating;
// - on some deliveries the handler hangs after its write, past its time limit (handlerTimeoutMs), and then tries
//   to write again: its transaction is abandoned, so neither write may ever count.
// The handlers write through `ctx.transaction`, the library's own transaction object, in the library's idiom. A
// reconciler runs every 10 minutes over the orders still unpaid. `pnpm test` runs 200 payments; `pnpm chaos`
// (KIRIMBAYAR_CHAOS=full) 1,000. Recovery is measured from the database's return until every payment paid before it
// is applied (but those whose first handling the campaign will still kill or hang): in real seconds (goal ≤ 60 s) and
// on the provider's clock (at most one reconciliation interval: a payment whose deliveries all failed during the
// outage waits for the next run).
import { createReconciler, type PendingReference, QrisClient } from "@kirimbayar/core";
import {
  createWebhookReceiver,
  type IdempotencyStore,
  type TransactionalIdempotencyStore,
  tokenVerifier,
} from "@kirimbayar/core/webhooks";
import { createFakeProvider } from "@kirimbayar/testing";
import { expect, vi } from "vitest";

/** `pnpm chaos` sets KIRIMBAYAR_CHAOS=full: 1,000 payments instead of 200. */
export const FULL = process.env.KIRIMBAYAR_CHAOS === "full";
export const PAYMENTS = FULL ? 1_000 : 200;
const MINUTES_OF_PAYMENTS = 60;
const OUTAGE = { from: 20, to: 50 }; // fake minutes: 30 minutes, longer than the 21 minutes of retries
const CRASH_AND_RESTART_AT = 10; // fake minute of the SIGKILL followed by an immediate restart (crash-mid-flight)
const RECONCILE_EVERY_MIN = 10;
const TOKEN = "never-lose-token";
const MINUTE = 60_000;
/** How long the crash waits for the minute's deliveries to sit between their effect and their commit. */
const GATHER_IN_FLIGHT_MS = 250;

/** A store whose transactions the handlers get as `ctx.transaction` (`Tx`, the library's own object). */
export type CampaignStore<Tx> = IdempotencyStore & TransactionalIdempotencyStore<Tx>;

/** One order row as the database holds it. */
export interface CampaignOrder {
  id: string;
  amount: number;
  paidCount: number;
}

/**
 * One database backend of the campaign, over a server the test file started: the shop's orders table
 * (`history_id`, `amount`, `paid_count`), the handler's write in the library's idiom, and the faults.
 */
export interface CampaignDatabase<Tx> {
  /** In the output line, `[never-lose:<label>]`; the original `pg` variant has none (`[never-lose]`). */
  readonly label?: string;
  /** The handlers' time limit (default 1 s: at 300 ms a loaded machine timed out ordinary deliveries and reconciliations). */
  readonly handlerTimeoutMs?: number;
  /**
   * How the 30-minute outage begins: `"stop"`, a clean shutdown between deliveries; `"crash-mid-flight"`, a SIGKILL of
   * the server while the minute's deliveries sit between their effect and their commit (and, earlier, a second one
   * followed by an immediate restart).
   */
  readonly outage: "stop" | "crash-mid-flight";
  /** Creates the orders table and the store's table (on a connection of the test's own). */
  prepare(): Promise<void>;
  /** Inserts unpaid orders (`paid_count` 0). */
  addOrders(orders: readonly { id: string; amount: number }[]): Promise<void>;
  /** Every order as committed; rejects while the database is down. */
  orders(): Promise<CampaignOrder[]>;
  /** A store for one app instance, over a pool or client of its own. */
  instanceStore(instance: number): Promise<CampaignStore<Tx>>;
  /** The handler's effect, in the library's idiom through the delivery's transaction: adds one to `paid_count`. */
  markPaid(tx: Tx, id: string): Promise<unknown>;
  /**
   * Kills the database backend (server process or connection) of the open transaction `tx` from outside, its id read
   * through `tx`, as a crash between the effect and the commit would; resolves once it is gone.
   */
  killBackend(tx: Tx): Promise<void>;
  /** Takes the database down: a clean stop, or a SIGKILL (see {@link CampaignDatabase.outage}). */
  goDown(): Promise<void>;
  /** Starts it again (after crash recovery); resolves once it accepts connections. */
  comeBack(): Promise<void>;
}

/** What a campaign measured (printed as one JSON line). */
export interface CampaignFigures {
  payments: number;
  paid: number;
  allDeliveriesFailed: number;
  killedBeforeCommit: number;
  hungPastTheirLimit: number;
  lateWritesRefused: number;
  deliveryAttempts: number;
  foundByReconciliation: number;
  slowestFindMinutes: number;
  paidBeforeReturn: number;
  faultedAgainAfterReturn: number;
  recoverySeconds: number | null;
  recoveryClockMinutes: number | null;
  firstAnswer200AfterReturnS: number | null;
  doubles: number;
  lost: number;
  wronglyApplied: number;
  /** Deliveries between their effect and their commit when the server was SIGKILLed (crash-mid-flight only). */
  inFlightAtCrash?: number;
  /** Of those, how many the restarted server held unpaid: their effects did not survive the crash. */
  rolledBackAtCrash?: number | undefined;
  /** The SIGKILL followed by an immediate restart (crash-mid-flight only): the same, and its recovery. */
  crashAndRestart?: {
    inFlight: number;
    rolledBack: number;
    /** From the restart until every delivery in flight at the crash is applied. */
    recoverySeconds: number | null;
    recoveryClockMinutes: number | null;
  };
  runSeconds: number;
}

const seconds = (ms: number) => Math.round(ms / 100) / 10;

/** Resolves once `condition()` holds, or after `timeoutMs` (polling every 5 ms). */
async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
}

/** The test's title: what the campaign goes through. */
export function campaignTitle(database: { outage: CampaignDatabase<unknown>["outage"] }): string {
  const outage =
    database.outage === "stop"
      ? "a 30-minute database outage"
      : "the database SIGKILLed mid-flight twice (restarted at once, then 30 minutes later)";
  return `applies each of ${PAYMENTS} paid QR payments exactly once through missed webhooks, ${outage}, connections killed before commit, handlers hung past their limit and two instances`;
}

/**
 * Runs the campaign against `database` and asserts its goals: 0 lost, 0 double, 0 wrongly applied; every fault met;
 * recovery within 60 s of the database's return (one reconciliation interval on the provider's clock).
 */
export async function runNeverLoseCampaign<Tx>(database: CampaignDatabase<Tx>): Promise<CampaignFigures> {
  const started = performance.now();
  await database.prepare();

  const allDeliveriesFail = new Set<string>();
  const killBeforeCommit = new Set<string>();
  const killed = new Set<string>();
  const hangOnce = new Set<string>();
  const hung = new Set<string>();
  const lateWritesRefused = new Set<string>();
  const appliedBy = new Map<string, { origin: string; at: number }[]>();
  // The crash mid-flight: armed for the outage's first minute, the deliveries then hold after their effect until it.
  let crash: { holding: Set<string>; firstHoldAt?: number; crashed: Promise<void>; done: () => void } | undefined;
  let heldAtCrash: string[] = [];
  // Of those, how many the restarted server holds as unpaid (none of their effects survived the crash).
  let rolledBackAtCrash: number | undefined;
  let restart:
    | {
        held: string[];
        rolledBack: number;
        returnedAt: number;
        returnedAtClock: number;
        recoveredAt?: number;
        recoveredAtClock?: number;
      }
    | undefined;

  const provider = createFakeProvider({
    rateLimit: false,
    qrisExpiryMs: 24 * 60 * MINUTE,
    webhooks: {
      qrisUrl: `https://shop.example.co.id/webhooks/qris?token=${TOKEN}`,
      fetch: async (request) => {
        const body = (await request.clone().json()) as { data?: { qris_history_id?: unknown } };
        const id = String(body.data?.qris_history_id);
        if (allDeliveriesFail.has(id)) return new Response("bad gateway", { status: 502 });
        const instance = instances[deliveries++ % instances.length] as (typeof instances)[number];
        const answer = await instance.receiver.fetch(request);
        if (answer.status === 200 && returnedAt !== undefined) firstOkAfterReturn ??= performance.now();
        return answer;
      },
    },
  });
  let deliveries = 0;
  // The database's return: real time and provider clock; then when every payment paid before it was applied.
  let returnedAt: number | undefined;
  let returnedAtClock = 0;
  let firstOkAfterReturn: number | undefined;
  let recoveredAt: number | undefined;
  let recoveredAtClock: number | undefined;
  let paidBeforeReturn: string[] = [];
  let faultedAgain = 0;

  // Two app instances: own pool, own store object, own receiver; one database.
  const instances = await Promise.all(
    [0, 1].map(async (n) => {
      const store = await database.instanceStore(n);
      const receiver = createWebhookReceiver({
        source: "qris",
        verify: [tokenVerifier({ secrets: [TOKEN], in: "query" })],
        idempotency: {
          store,
          transactional: true,
          operationTimeoutMs: 2_000,
          handlerTimeoutMs: database.handlerTimeoutMs ?? 1_000,
        },
        logger: { error: () => {}, warn: () => {} },
      }).on("payment.success", async (event, ctx) => {
        const id = String(event.data.qris_history_id);
        const tx = ctx.transaction;
        await database.markPaid(tx, id);
        const pending = crash;
        if (pending !== undefined && !ctx.signal.aborted) {
          // Between the effect and the commit when the server is SIGKILLed: nothing of it may survive.
          pending.holding.add(id);
          pending.firstHoldAt ??= performance.now();
          const aborted = new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
          await Promise.race([pending.crashed, aborted]);
          pending.holding.delete(id);
          return;
        }
        if (killBeforeCommit.has(id) && !killed.has(id)) {
          killed.add(id);
          await database.killBackend(tx);
        }
        if (hangOnce.has(id) && !hung.has(id)) {
          hung.add(id);
          // Stuck (a call that never answers) until the receiver gives up on it, then goes on regardless.
          if (!ctx.signal.aborted) {
            await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
          }
          try {
            await database.markPaid(tx, id);
          } catch {
            lateWritesRefused.add(id);
          }
          return;
        }
        // Seen by this process only once the transaction commits (checked against the table at the end).
        const list = appliedBy.get(id) ?? [];
        list.push({ origin: `${ctx.origin}@${n}`, at: provider.clock.now() });
        appliedBy.set(id, list);
      });
      return { receiver };
    }),
  );

  const qris = new QrisClient({
    apiKey: provider.apiKeys.qris[0] ?? "",
    baseUrl: provider.baseUrl,
    fetch: provider.fetch,
  });
  const reconciler = createReconciler({
    receivers: { qris: (instances[0] as (typeof instances)[number]).receiver },
    clients: { qris },
    concurrency: 4,
    minIntervalPerIdMs: 3_000,
    clock: () => provider.clock.now(),
  });

  // The shop's orders, each with its QR code; 90 % will be paid.
  const codes: { id: string; amount: number; paid: boolean }[] = [];
  for (let i = 0; i < PAYMENTS; i++) {
    const { data } = await qris.generateQris({ qris_id: 1, amount: 10_000 + i, output_type: "string" });
    const id = String(data.history_id);
    const paid = i % 10 !== 9;
    codes.push({ id, amount: data.final_amount, paid });
    if (paid && i % 5 === 0) allDeliveriesFail.add(id);
    if (paid && i % 20 === 3) killBeforeCommit.add(id);
    if (paid && i % 20 === 7) hangOnce.add(id);
  }
  await database.addOrders(codes);
  const paidCodes = codes.filter((code) => code.paid);
  const paidAt = new Map<string, number>();
  const reconcileRuns: { at: number; applied: number; failed: number }[] = [];

  async function reconcileOnce(): Promise<void> {
    let pending: PendingReference[];
    try {
      const unpaid = (await database.orders()).filter((order) => order.paidCount === 0);
      pending = unpaid.map((order) => ({ source: "qris", history_id: order.id, amount: order.amount }));
    } catch {
      reconcileRuns.push({ at: provider.clock.now(), applied: 0, failed: -1 }); // database down: next interval
      return;
    }
    const results = await reconciler.reconcile(pending);
    reconcileRuns.push({
      at: provider.clock.now(),
      applied: results.filter((result) => result.outcome === "applied").length,
      failed: results.filter((result) => result.outcome === "failed").length,
    });
  }

  async function checkRecovered(): Promise<void> {
    const waiting = restart !== undefined && restart.recoveredAt === undefined;
    if (!waiting && (returnedAt === undefined || recoveredAt !== undefined)) return;
    const orders = await database.orders().catch(() => undefined);
    if (orders === undefined) return;
    const unpaid = new Set(orders.filter((order) => order.paidCount === 0).map((order) => order.id));
    if (restart !== undefined && restart.recoveredAt === undefined && !restart.held.some((id) => unpaid.has(id))) {
      restart.recoveredAt = performance.now();
      restart.recoveredAtClock = provider.clock.now();
    }
    if (returnedAt === undefined || recoveredAt !== undefined) return;
    if (paidBeforeReturn.some((id) => unpaid.has(id))) return;
    recoveredAt = performance.now();
    recoveredAtClock = provider.clock.now();
  }

  // How many of `ids` the database holds unpaid, read before any delivery reaches the restarted server (a pooled
  // connection may still be found broken: retried).
  async function unpaidAmong(ids: readonly string[]): Promise<number> {
    const orders = await vi.waitFor(() => database.orders(), { timeout: 5_000, interval: 100 });
    const unpaid = new Set(orders.filter((order) => order.paidCount === 0).map((order) => order.id));
    return ids.filter((id) => unpaid.has(id)).length;
  }

  // A crash minute: the minute's payments paid at once; the server SIGKILLed once they sit between their effect and
  // their commit (or shortly after the first one does). Answers the orders of the deliveries it met.
  async function payThenCrash(batch: readonly { id: string }[]): Promise<string[]> {
    let done!: () => void;
    const crashed = new Promise<void>((resolve) => {
      done = resolve;
    });
    const armed: NonNullable<typeof crash> = { holding: new Set(), crashed, done };
    crash = armed;
    const arriving = batch.filter((code) => !allDeliveriesFail.has(code.id)).length;
    const paying = Promise.all(
      batch.map((code) => {
        paidAt.set(code.id, provider.clock.now());
        return provider.qris.pay(code.id);
      }),
    );
    await until(
      () =>
        armed.holding.size >= arriving ||
        (armed.firstHoldAt !== undefined && performance.now() - armed.firstHoldAt > GATHER_IN_FLIGHT_MS),
      10_000,
    );
    const held = [...armed.holding];
    await database.goDown();
    crash = undefined;
    armed.done();
    await paying;
    return held;
  }

  const perMinute = Math.ceil(paidCodes.length / MINUTES_OF_PAYMENTS);
  const totalMinutes = MINUTES_OF_PAYMENTS + 40; // then the last retries and reconciliations
  for (let minute = 0; minute < totalMinutes; minute++) {
    const batch = paidCodes.slice(minute * perMinute, (minute + 1) * perMinute);
    const crashes = database.outage === "crash-mid-flight";
    const crashNow = minute === OUTAGE.from && crashes;
    const crashAndRestartNow = minute === CRASH_AND_RESTART_AT && crashes;
    if (minute === OUTAGE.from && !crashNow) await database.goDown();
    if (minute === OUTAGE.to) {
      await database.comeBack();
      returnedAt = performance.now();
      returnedAtClock = provider.clock.now();
      if (crashes) rolledBackAtCrash = await unpaidAmong(heldAtCrash);
      // Left out: payments whose first handling the campaign still kills or hangs on purpose (a second fault after
      // the return, not a recovery): they wait for the next delivery or reconciliation by design.
      paidBeforeReturn = [...paidAt.keys()].filter(
        (id) => !(killBeforeCommit.has(id) && !killed.has(id)) && !(hangOnce.has(id) && !hung.has(id)),
      );
      faultedAgain = paidAt.size - paidBeforeReturn.length;
    }
    if (crashNow) heldAtCrash = await payThenCrash(batch);
    else if (crashAndRestartNow) {
      const held = await payThenCrash(batch);
      await database.comeBack();
      const back = { returnedAt: performance.now(), returnedAtClock: provider.clock.now() };
      restart = { held, rolledBack: await unpaidAmong(held), ...back };
    } else {
      for (const code of batch) {
        paidAt.set(code.id, provider.clock.now());
        await provider.qris.pay(code.id);
      }
    }
    await provider.webhooks.settled();
    if (minute % RECONCILE_EVERY_MIN === RECONCILE_EVERY_MIN - 1) await reconcileOnce();
    await checkRecovered();
    await provider.clock.advance(MINUTE);
    await provider.webhooks.settled();
    await checkRecovered();
  }

  // The database is the truth: exactly once for every paid payment, never for an unpaid one.
  const counts = new Map((await database.orders()).map((order) => [order.id, order.paidCount]));
  const doubles = paidCodes.filter((code) => (counts.get(code.id) ?? 0) > 1).length;
  const lost = paidCodes.filter((code) => (counts.get(code.id) ?? 0) === 0).length;
  const wronglyApplied = codes.filter((code) => !code.paid && (counts.get(code.id) ?? 0) !== 0).length;
  const byReconciliation = paidCodes.filter(
    (code) =>
      counts.get(code.id) === 1 && (appliedBy.get(code.id) ?? []).some((a) => a.origin.startsWith("reconciliation")),
  );
  // A missed payment (all webhooks failed) paid while the database was up is found by the next run: within one
  // interval of its payment.
  const missedOutsideOutage = paidCodes.filter((code) => {
    const at = (paidAt.get(code.id) ?? 0) / MINUTE - (paidAt.get(paidCodes[0]?.id ?? "") ?? 0) / MINUTE;
    return allDeliveriesFail.has(code.id) && (at < OUTAGE.from - RECONCILE_EVERY_MIN || at >= OUTAGE.to);
  });
  const slowest = Math.max(
    ...missedOutsideOutage.map((code) => {
      const applied = (appliedBy.get(code.id) ?? []).find((a) => a.origin.startsWith("reconciliation"));
      return applied === undefined ? Number.POSITIVE_INFINITY : (applied.at - (paidAt.get(code.id) ?? 0)) / MINUTE;
    }),
  );
  const figures: CampaignFigures = {
    payments: PAYMENTS,
    paid: paidCodes.length,
    allDeliveriesFailed: allDeliveriesFail.size,
    killedBeforeCommit: killed.size,
    hungPastTheirLimit: hung.size,
    lateWritesRefused: lateWritesRefused.size,
    deliveryAttempts: provider.deliveries.length,
    foundByReconciliation: byReconciliation.length,
    slowestFindMinutes: slowest,
    paidBeforeReturn: paidBeforeReturn.length,
    faultedAgainAfterReturn: faultedAgain,
    recoverySeconds: recoveredAt === undefined || returnedAt === undefined ? null : seconds(recoveredAt - returnedAt),
    recoveryClockMinutes: recoveredAtClock === undefined ? null : (recoveredAtClock - returnedAtClock) / MINUTE,
    firstAnswer200AfterReturnS:
      firstOkAfterReturn === undefined || returnedAt === undefined ? null : seconds(firstOkAfterReturn - returnedAt),
    doubles,
    lost,
    wronglyApplied,
    ...(database.outage === "crash-mid-flight" ? { inFlightAtCrash: heldAtCrash.length, rolledBackAtCrash } : {}),
    ...(restart === undefined
      ? {}
      : {
          crashAndRestart: {
            inFlight: restart.held.length,
            rolledBack: restart.rolledBack,
            recoverySeconds:
              restart.recoveredAt === undefined ? null : seconds(restart.recoveredAt - restart.returnedAt),
            recoveryClockMinutes:
              restart.recoveredAtClock === undefined
                ? null
                : (restart.recoveredAtClock - restart.returnedAtClock) / MINUTE,
          },
        }),
    runSeconds: seconds(performance.now() - started),
  };
  const prefix = database.label === undefined ? "[never-lose]" : `[never-lose:${database.label}]`;
  console.log(`${prefix} ${JSON.stringify(figures)}`);
  expect({ doubles, lost, wronglyApplied }).toEqual({ doubles: 0, lost: 0, wronglyApplied: 0 });
  expect(killed.size).toBeGreaterThan(0);
  expect(hung.size).toBeGreaterThan(0);
  expect(lateWritesRefused.size).toBe(hung.size);
  expect(provider.deliveries.some((d) => d.status === 503)).toBe(true); // the outage did refuse deliveries
  // The crash met deliveries between their effect and their commit, and none of their effects survived it.
  if (database.outage === "crash-mid-flight") {
    expect(heldAtCrash.length).toBeGreaterThan(0);
    expect(rolledBackAtCrash).toBe(heldAtCrash.length);
    // The same for the crash followed by an immediate restart; its deliveries applied within 60 s of the restart.
    const restarted = figures.crashAndRestart;
    expect(restarted?.inFlight).toBeGreaterThan(0);
    expect(restarted?.rolledBack).toBe(restarted?.inFlight);
    expect(restarted?.recoverySeconds).not.toBeNull();
    expect(restarted?.recoverySeconds).toBeLessThanOrEqual(60);
  }
  expect(byReconciliation.length).toBeGreaterThanOrEqual(allDeliveriesFail.size);
  expect(slowest).toBeLessThanOrEqual(RECONCILE_EVERY_MIN);
  // Recovered: every payment paid before the database's return applied within 60 s of it (real time), at most one
  // reconciliation interval later on the provider's clock; the first delivery after the return was answered 200.
  expect(figures.recoverySeconds).not.toBeNull();
  expect(figures.recoverySeconds).toBeLessThanOrEqual(60);
  expect(figures.recoveryClockMinutes).toBeLessThanOrEqual(RECONCILE_EVERY_MIN);
  expect(figures.firstAnswer200AfterReturnS).not.toBeNull();
  return figures;
}
