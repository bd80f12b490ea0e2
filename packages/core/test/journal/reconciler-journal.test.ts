// The reconciler journals one run per reconcile(), and the receivers it applies through journal each applied event.
import { describe, expect, it } from "vitest";
import { createReconciler, createWebhookReceiver } from "../../src/index.js";
import { MemoryDeliveryJournal } from "../../src/journal.js";

const quiet = { warn: () => {}, error: () => {} };

function qrisStatus(table: Record<string, Record<string, unknown>>) {
  return { getQrisPaymentStatus: async (id: string) => ({ data: table[id] ?? { payment_status: "unpaid" } }) };
}

describe("the reconciler with a journal", () => {
  it("records one run with its counts by outcome, and the receiver journals the applied event", async () => {
    let now = 1_700_000_000_000;
    const journal = new MemoryDeliveryJournal();
    const qris = createWebhookReceiver({ source: "qris", insecureNoVerification: true, logger: quiet, journal });
    qris.on("payment.success", () => {});
    const reconciler = createReconciler({
      receivers: { qris },
      clients: { qris: qrisStatus({ "h-paid": { payment_status: "paid", amount: 10_000 } }) },
      journal,
      clock: () => (now += 10),
    });
    const results = await reconciler.reconcile([
      { source: "qris", history_id: "h-paid" },
      { source: "qris", history_id: "h-unpaid" },
    ]);
    expect(results.map((result) => result.outcome)).toEqual(["applied", "pending"]);
    const [run] = await journal.reconcileRuns();
    expect(run).toMatchObject({ references: 2, outcomes: { applied: 1, pending: 1 } });
    expect(run?.finishedAt).toBeGreaterThan(run?.startedAt as number);
    expect(typeof run?.instance).toBe("string");
    const deadline = Date.now() + 2_000;
    while ((await journal.search({ reference: "h-paid" })).length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await journal.search({ reference: "h-paid" })).toMatchObject([
      { origin: "reconciliation", outcome: "processed", references: { qris_history_id: "h-paid" } },
    ]);
  });

  it("returns its results when the journal fails, and logs it", async () => {
    const journal = new MemoryDeliveryJournal();
    journal.recordReconcileRun = () => Promise.reject(new Error("journal down"));
    const logged: string[] = [];
    const qris = createWebhookReceiver({ source: "qris", insecureNoVerification: true, logger: quiet });
    qris.on("payment.success", () => {});
    const reconciler = createReconciler({
      receivers: { qris },
      clients: { qris: qrisStatus({}) },
      journal,
      logger: { warn: () => {}, error: (message: string) => logged.push(message) },
    });
    const results = await reconciler.reconcile([{ source: "qris", history_id: "h-1" }]);
    expect(results.map((result) => result.outcome)).toEqual(["pending"]);
    expect(logged).toEqual(["Could not journal a reconciliation run; its results are unchanged"]);
  });

  it("refuses a journal that cannot record runs", () => {
    const qris = createWebhookReceiver({ source: "qris", insecureNoVerification: true, logger: quiet });
    expect(() =>
      createReconciler({
        receivers: { qris },
        clients: { qris: qrisStatus({}) },
        journal: {} as MemoryDeliveryJournal,
      }),
    ).toThrow(/journal/);
  });
});
