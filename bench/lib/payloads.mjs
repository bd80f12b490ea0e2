// The QR payment event the adapter benchmarks deliver (about 330 bytes, like the provider's), shared by the load
// test (adapters/run.mjs) and its in-process twin (webhook-pipeline/token-path.mjs) so both measure the same body.

/** The event as JSON text; `id` becomes `qris_history_id` (autocannon passes its `[<id>]` placeholder). */
export const qrisSuccessBody = (id) =>
  JSON.stringify({
    event: "payment.success",
    timestamp: "2026-03-01T08:15:00Z",
    data: {
      qris_history_id: id,
      qris_id: "6f1c2a8e-1d7b-4a51-9a3e-0c1f5e2b7d90",
      amount: 100001,
      original_amount: 100000,
      status: "paid",
      paid_at: "2026-03-01T08:14:58Z",
      payment_method: "qris",
      payment_provider: "dana",
      created_at: "2026-03-01T08:00:00Z",
    },
  });
