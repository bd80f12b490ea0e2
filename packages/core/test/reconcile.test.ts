import { describe, expect, it } from "vitest";
import {
  createReconciler,
  createWebhookReceiver,
  RateLimitError,
  type ReconcileResult,
  RequestValidationError,
  type WebhookContext,
} from "../src/index.js";
import type { PendingReference } from "../src/reconcile/references.js";
import { bodyOf, qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const quiet = { warn: () => {}, error: () => {} };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A provider whose status endpoints answer from a table the test edits; it counts and can fail calls. */
function provider() {
  const qris = new Map<string, Record<string, unknown>>();
  const payments = new Map<string, Record<string, unknown>>();
  const calls: string[] = [];
  const failures = new Map<string, unknown>();
  let inFlight = 0;
  let maxInFlight = 0;
  const answer = async <T>(id: string, table: Map<string, T>) => {
    calls.push(id);
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    await sleep(5);
    inFlight--;
    const failure = failures.get(id);
    if (failure !== undefined) throw failure;
    return { data: table.get(id) ?? ({} as T) };
  };
  return {
    qris,
    payments,
    calls,
    failures,
    maxInFlight: () => maxInFlight,
    clients: {
      qris: { getQrisPaymentStatus: (id: string) => answer(id, qris) },
      payment: { getPaymentStatus: (id: string) => answer(id, payments) },
    },
  };
}

function receivers() {
  const applied: { source: string; id: string; origin: WebhookContext["origin"]; event: string }[] = [];
  const qris = createWebhookReceiver({ source: "qris", insecureNoVerification: true, logger: quiet });
  qris.on("payment.success", (event, ctx) => {
    applied.push({ source: "qris", id: String(event.data.qris_history_id), origin: ctx.origin, event: event.event });
  });
  qris.on("payment.expired", (event, ctx) => {
    applied.push({ source: "qris", id: String(event.data.qris_history_id), origin: ctx.origin, event: event.event });
  });
  const payment = createWebhookReceiver({ source: "payment", insecureNoVerification: true, logger: quiet });
  payment.on("payment.callback", (event, ctx) => {
    applied.push({ source: "payment", id: String(event.payment_id), origin: ctx.origin, event: String(event.status) });
  });
  return { qris, payment, applied };
}

function setup(options: { clock?: () => number; concurrency?: number } = {}) {
  const world = provider();
  const r = receivers();
  const reconciler = createReconciler({
    receivers: { qris: r.qris, payment: r.payment },
    clients: world.clients,
    ...options,
  });
  return { world, ...r, reconciler };
}

const qrisRef = (id: string, amount?: number): PendingReference =>
  amount === undefined ? { source: "qris", history_id: id } : { source: "qris", history_id: id, amount };

describe("createReconciler: reconcile()", () => {
  it("applies a paid QR payment whose webhooks never came, and a later webhook of it is a duplicate", async () => {
    const { world, qris, applied, reconciler } = setup();
    world.qris.set("h-1", {
      history_id: "h-1",
      payment_status: "paid",
      amount: 100_001,
      paid_at: "2026-05-01 10:05:00",
    });
    const [result] = await reconciler.reconcile([qrisRef("h-1")]);
    expect(result).toMatchObject({ outcome: "applied", providerStatus: "paid", key: "qris:payment.success:h-1" });
    expect(applied).toEqual([{ source: "qris", id: "h-1", origin: "reconciliation", event: "payment.success" }]);
    const late = await qris.handle(
      webhookRequest({ rawBody: JSON.stringify(qrisSuccess({ qris_history_id: "h-1" })) }),
    );
    expect(late.status).toBe(200);
    expect(bodyOf(late).message).toMatch(/Duplicate of an event already processed/);
    expect(applied).toHaveLength(1);
  });

  it("does nothing for a payment a webhook already applied", async () => {
    const { world, qris, applied, reconciler } = setup();
    await qris.handle(webhookRequest({ rawBody: JSON.stringify(qrisSuccess({ qris_history_id: "h-2" })) }));
    world.qris.set("h-2", { payment_status: "paid", amount: 100_001 });
    const [result] = await reconciler.reconcile([qrisRef("h-2")]);
    expect(result?.outcome).toBe("already_applied");
    expect(applied.map((a) => a.origin)).toEqual(["webhook"]);
  });

  it("reports unpaid as pending, applies expired, and reports a state no handler listens to", async () => {
    const { world, applied, reconciler } = setup();
    world.qris.set("unpaid", { payment_status: "unpaid" });
    world.qris.set("gone", { payment_status: "expired", expiry_time: "2026-05-01 10:15:00" });
    world.qris.set("void", { payment_status: "cancelled" });
    const results = await reconciler.reconcile([qrisRef("unpaid"), qrisRef("gone"), qrisRef("void")]);
    expect(results.map((r) => r.outcome)).toEqual(["pending", "applied", "not_handled"]);
    expect(applied).toEqual([{ source: "qris", id: "gone", origin: "reconciliation", event: "payment.expired" }]);
  });

  it("takes the amount from the reference when the status endpoint leaves it out", async () => {
    const { world, reconciler } = setup();
    world.qris.set("no-amount", { payment_status: "paid" });
    world.qris.set("with-ref-amount", { payment_status: "paid" });
    const [without, withAmount] = await reconciler.reconcile([
      qrisRef("no-amount"),
      qrisRef("with-ref-amount", 50_003),
    ]);
    expect(without?.outcome).toBe("failed");
    expect(String((without?.error as Error | undefined)?.message)).toMatch(/amount/);
    expect(withAmount?.outcome).toBe("applied");
  });

  it("applies a paid gateway payment under the key its callback carries", async () => {
    const { world, payment, applied, reconciler } = setup();
    world.payments.set("KPAY-1/KM/2026", { payment_id: "KPAY-1/KM/2026", status: "PAID", amount: 150_000 });
    world.payments.set("KPAY-2", { status: "PENDING" });
    const results = await reconciler.reconcile([
      { source: "payment", payment_id: "KPAY-1/KM/2026" },
      { source: "payment", payment_id: "KPAY-2" },
    ]);
    expect(results.map((r) => r.outcome)).toEqual(["applied", "pending"]);
    const callback = await payment.handle(
      webhookRequest({ rawBody: JSON.stringify({ payment_id: "KPAY-1/KM/2026", status: "PAID", amount: 150_000 }) }),
    );
    expect(bodyOf(callback).message).toMatch(/Duplicate/);
    expect(applied).toHaveLength(1);
  });

  it("keeps going when the provider fails for one reference, reporting the typed error", async () => {
    const { world, reconciler } = setup();
    world.failures.set(
      "broken",
      new RateLimitError("slow down", { status: 429, method: "GET", path: "/status", retryAfterMs: 10_000 }),
    );
    world.qris.set("fine", { payment_status: "paid", amount: 1_000 });
    const results = await reconciler.reconcile([qrisRef("broken"), qrisRef("fine")]);
    expect(results[0]?.outcome).toBe("failed");
    expect(results[0]?.error).toBeInstanceOf(RateLimitError);
    expect(["applied", "skipped"]).toContain(results[1]?.outcome);
  });

  it("reports a handler's failure with the handler's own error, and applies it on the next run", async () => {
    const world = provider();
    let calls = 0;
    const qris = createWebhookReceiver({ source: "qris", insecureNoVerification: true, logger: quiet }).on(
      "payment.success",
      () => {
        calls++;
        if (calls === 1) throw new Error("database down");
      },
    );
    let now = 0;
    const reconciler = createReconciler({ receivers: { qris }, clients: world.clients, clock: () => now });
    world.qris.set("h", { payment_status: "paid", amount: 1_000 });
    const [first] = await reconciler.reconcile([qrisRef("h")]);
    expect(first?.outcome).toBe("failed");
    expect((first?.error as Error | undefined)?.message).toBe("database down");
    now += 3_000;
    const [second] = await reconciler.reconcile([qrisRef("h")]);
    expect(second?.outcome).toBe("applied");
  });

  it("reports exactly the fields each outcome has, and stamps each event with the reconciler's clock", async () => {
    const world = provider();
    const seen: { timestamp: string; origin: string }[] = [];
    const qris = createWebhookReceiver({ source: "qris", insecureNoVerification: true, logger: quiet });
    qris.on("payment.success", (event, ctx) => {
      seen.push({ timestamp: event.timestamp, origin: ctx.origin });
    });
    const times = [Date.UTC(2026, 4, 1, 10, 5), Date.UTC(2026, 4, 1, 10, 5), Date.UTC(2026, 4, 1, 10, 6, 7, 8)];
    let tick = 0;
    const reconciler = createReconciler({
      receivers: { qris },
      clients: world.clients,
      concurrency: 1,
      minIntervalPerIdMs: 0,
      // Each status answer is stamped with the next time (same millisecond twice, then a later one).
      clock: () => times[Math.min(tick++ >> 1, times.length - 1)] as number,
    });
    for (const id of ["a", "b", "c"]) world.qris.set(id, { payment_status: "paid", amount: 1_000 });
    world.qris.set("no-amount", { payment_status: "paid" });
    world.qris.set("waiting", { payment_status: "unpaid" });
    const results = await reconciler.reconcile(
      ["a", "b", "c", "no-amount", "waiting"].map((id) => qrisRef(id)).concat(qrisRef("a")),
    );
    const [a, b, c, invalid, pending, again] = results;
    expect(a).toStrictEqual({
      reference: qrisRef("a"),
      providerStatus: "paid",
      key: "qris:payment.success:a",
      outcome: "applied",
    });
    expect(b?.outcome).toBe("applied");
    expect(c?.outcome).toBe("applied");
    // The event could not be parsed, so no key is known: the entry has none (not `key: undefined`).
    expect(Object.keys(invalid ?? {})).toEqual(["reference", "providerStatus", "outcome", "error"]);
    expect(invalid?.outcome).toBe("failed");
    expect(pending).toStrictEqual({ reference: qrisRef("waiting"), outcome: "pending", providerStatus: "unpaid" });
    expect(again).toStrictEqual({
      reference: qrisRef("a"),
      providerStatus: "paid",
      key: "qris:payment.success:a",
      outcome: "already_applied",
    });
    // The clock is read twice per reference (polling limits, then the event): each timestamp is the ISO form of
    // that reference's reading, the same millisecond twice and then a later one.
    expect(seen).toEqual(
      [times[0], times[1], times[2]].map((t) => ({
        timestamp: new Date(t as number).toISOString(),
        origin: "reconciliation",
      })),
    );
  });

  it("refuses malformed references, unknown sources and unconfigured sources before any network call", async () => {
    const world = provider();
    const { qris } = receivers();
    const reconciler = createReconciler({ receivers: { qris }, clients: { qris: world.clients.qris } });
    const bad = [
      { source: "orders", order_no: "A1" },
      { source: "qris" },
      { source: "qris", history_id: "" },
      { source: "qris", history_id: "h", amount: 1.5 },
      null,
    ] as unknown as PendingReference[];
    const error = await reconciler.reconcile(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as RequestValidationError).issues.map((i) => i.path)).toEqual(["0", "1", "2", "3", "4"]);
    await expect(reconciler.reconcile([{ source: "payment", payment_id: "P" }])).rejects.toThrow(
      /no payment receiver and client/,
    );
    expect(world.calls).toEqual([]);
  });

  it("asks about one id at most once per 3 s, and pauses everyone after a 429 until Retry-After", async () => {
    let now = 1_000_000;
    const { world, reconciler } = setup({ clock: () => now });
    world.qris.set("a", { payment_status: "unpaid" });
    expect((await reconciler.reconcile([qrisRef("a")]))[0]?.outcome).toBe("pending");
    const [tooSoon] = await reconciler.reconcile([qrisRef("a")]);
    expect(tooSoon).toMatchObject({ outcome: "skipped", reason: expect.stringMatching(/polling limit/) });
    now += 3_000;
    world.failures.set(
      "a",
      new RateLimitError("slow down", { status: 429, method: "GET", path: "/status", retryAfterMs: 10_000 }),
    );
    expect((await reconciler.reconcile([qrisRef("a")]))[0]?.outcome).toBe("failed");
    now += 5_000;
    const [paused] = await reconciler.reconcile([qrisRef("b")]);
    expect(paused).toMatchObject({ outcome: "skipped", reason: expect.stringMatching(/429/) });
    now += 6_000;
    world.failures.clear();
    expect((await reconciler.reconcile([qrisRef("b")]))[0]?.outcome).toBe("pending");
    expect(world.calls).toEqual(["a", "a", "b"]);
  });

  it("keeps at most `concurrency` status requests in flight", async () => {
    const { world, reconciler } = setup({ concurrency: 3 });
    const refs = Array.from({ length: 12 }, (_, i) => qrisRef(`c-${i}`));
    const results = await reconciler.reconcile(refs);
    expect(results.every((r) => r.outcome === "pending")).toBe(true);
    expect(world.maxInFlight()).toBe(3);
  });
});

describe("createReconciler: start()", () => {
  it("runs on an interval, reports each run, survives a failing pending() and stops cleanly", async () => {
    const { world, reconciler } = setup({ concurrency: 2 });
    world.qris.set("late", { payment_status: "paid", amount: 5_000 });
    const reports: string[][] = [];
    let asked = 0;
    const errors: unknown[] = [];
    const running = createReconciler({
      receivers: { qris: receivers().qris },
      clients: world.clients,
      minIntervalPerIdMs: 1,
      logger: { error: (_message: string, details?: Record<string, unknown>) => errors.push(details?.error) },
    }).start({
      every: 15,
      pending: () => {
        asked++;
        if (asked === 2) throw new Error("db query failed");
        return [qrisRef("late")];
      },
      onReport: (results) => {
        reports.push(results.map((r) => r.outcome));
      },
    });
    const deadline = Date.now() + 3_000;
    while (reports.length < 3 && Date.now() < deadline) await sleep(5);
    await running.stop();
    const runsAtStop = asked;
    await sleep(60);
    expect(asked).toBe(runsAtStop);
    expect(reports[0]).toEqual(["applied"]);
    expect(reports[1]).toEqual(["already_applied"]);
    expect(errors).toHaveLength(1);
    expect(() => reconciler.start({ every: 0, pending: () => [] })).toThrow(/every must be a positive number/);
  });
});

describe("stopping a run (reconcile with a signal, stop())", () => {
  const refs = (n: number) => Array.from({ length: n }, (_, i) => qrisRef(`s-${i}`));

  it("asks about nothing more once the signal aborts: the rest is skipped, the references in flight finish", async () => {
    const { world, reconciler, applied } = setup({ concurrency: 2 });
    for (let i = 0; i < 40; i++) world.qris.set(`s-${i}`, { payment_status: "paid", amount: 1_000 + i });
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 12);
    const results = await reconciler.reconcile(refs(40), { signal: stop.signal });
    const asked = world.calls.length;
    expect(asked).toBeGreaterThan(0);
    expect(asked).toBeLessThan(40);
    expect(results).toHaveLength(40);
    expect(results.filter((r) => r.outcome === "applied")).toHaveLength(asked);
    expect(applied).toHaveLength(asked);
    expect(results.slice(asked).every((r) => r.outcome === "skipped" && r.reason === "stopped")).toBe(true);
    expect(results.slice(asked).map((r) => r.reference)).toEqual(refs(40).slice(asked));
  });

  it("with a signal aborted already, asks nothing; a signal that is not an AbortSignal is refused first", async () => {
    const { world, reconciler } = setup();
    const results = await reconciler.reconcile(refs(3), { signal: AbortSignal.abort() });
    expect(results.map((r) => r.outcome)).toEqual(["skipped", "skipped", "skipped"]);
    await expect(reconciler.reconcile(refs(1), { signal: { aborted: false } as never })).rejects.toBeInstanceOf(
      RequestValidationError,
    );
    expect(world.calls).toEqual([]);
  });

  it("stop() ends a long run after the references in flight, and its report says what was skipped", async () => {
    const { world } = setup();
    const reports: (readonly ReconcileResult[])[] = [];
    const running = createReconciler({
      receivers: { qris: receivers().qris },
      clients: world.clients,
      concurrency: 2,
      minIntervalPerIdMs: 0,
    }).start({ every: 1, jitter: 0, pending: () => refs(200), onReport: (results) => void reports.push(results) });
    while (world.calls.length < 4) await sleep(1);
    const started = performance.now();
    await running.stop();
    expect(performance.now() - started).toBeLessThan(200);
    const asked = world.calls.length;
    await sleep(30);
    expect(world.calls.length).toBe(asked);
    expect(asked).toBeLessThan(200);
    const last = reports.at(-1) ?? [];
    expect(last.filter((r) => r.outcome === "skipped").length).toBe(200 - asked);
  });

  it("does not wait for a pending() that hangs: stop() resolves at once, and nothing is asked", async () => {
    const { world } = setup();
    let calls = 0;
    const running = createReconciler({ receivers: { qris: receivers().qris }, clients: world.clients }).start({
      every: 1,
      pending: () => {
        calls++;
        return new Promise<PendingReference[]>(() => {});
      },
    });
    while (calls === 0) await sleep(1);
    const started = performance.now();
    await running.stop();
    expect(performance.now() - started).toBeLessThan(100);
    expect(world.calls).toEqual([]);
  });

  it("goes on after a pending() or an onReport() that hangs past callbackTimeoutMs, logging each", async () => {
    const { world } = setup();
    world.qris.set("cb-1", { payment_status: "paid", amount: 1_000 });
    const errors: string[] = [];
    let pendingCalls = 0;
    let reportCalls = 0;
    const running = createReconciler({
      receivers: { qris: receivers().qris },
      clients: world.clients,
      minIntervalPerIdMs: 0,
      logger: { error: (_message: string, details?: Record<string, unknown>) => errors.push(String(details?.error)) },
    }).start({
      every: 5,
      callbackTimeoutMs: 40,
      pending: () => {
        pendingCalls++;
        return pendingCalls === 1 ? new Promise<PendingReference[]>(() => {}) : [qrisRef("cb-1")];
      },
      onReport: () => {
        reportCalls++;
        return reportCalls === 1 ? new Promise(() => {}) : undefined;
      },
    });
    const deadline = Date.now() + 3_000;
    while (reportCalls < 2 && Date.now() < deadline) await sleep(5);
    await running.stop();
    expect(reportCalls).toBeGreaterThanOrEqual(2);
    expect(errors.slice(0, 2)).toEqual([
      expect.stringMatching(/pending\(\) did not answer within 40 ms/),
      expect.stringMatching(/onReport\(\) did not answer within 40 ms/),
    ]);
  });

  it("waits an interval longer than a timer can (30 days) as the longest timer, never as no wait", async () => {
    const { world } = setup();
    let runs = 0;
    const running = createReconciler({ receivers: { qris: receivers().qris }, clients: world.clients }).start({
      every: 30 * 24 * 60 * 60 * 1000,
      jitter: 0,
      pending: () => {
        runs++;
        return [];
      },
    });
    await sleep(50);
    await running.stop();
    expect(runs).toBe(0);
  });

  it("refuses a callbackTimeoutMs that is not a positive number", () => {
    const { reconciler } = setup();
    expect(() => reconciler.start({ every: 10, pending: () => [], callbackTimeoutMs: 0 })).toThrow(
      /callbackTimeoutMs must be a positive number/,
    );
  });
});

describe("payment keys shared by callbacks and reconciliation", () => {
  it("treats a callback's status in any letter case (and the British CANCELLED) as the gateway's state", async () => {
    const world = provider();
    const { payment, applied } = receivers();
    const reconciler = createReconciler({ receivers: { payment }, clients: { payment: world.clients.payment } });
    await payment.handle(
      webhookRequest({ rawBody: JSON.stringify({ payment_id: "P-9", status: "paid", amount: 1_000 }) }),
    );
    world.payments.set("P-9", { status: "PAID", amount: 1_000 });
    const [result] = await reconciler.reconcile([{ source: "payment", payment_id: "P-9" }]);
    expect(result).toMatchObject({ outcome: "already_applied", key: "payment:P-9:PAID" });
    await payment.handle(webhookRequest({ rawBody: JSON.stringify({ payment_id: "P-8", status: "Cancelled" }) }));
    const cancelled = await payment.handle(
      webhookRequest({ rawBody: JSON.stringify({ payment_id: "P-8", status: "CANCELED" }) }),
    );
    expect(bodyOf(cancelled).message).toMatch(/Duplicate/);
    expect(applied.map((a) => a.id)).toEqual(["P-9", "P-8"]);
  });
});
